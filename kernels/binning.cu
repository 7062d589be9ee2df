// Binning's stages and paths (kernels/binning.h): each stage sizes its own
// buffers and queues its kernels (kernels/bin.cu, bin_count.cu) on the
// renderer's stream; each path strings stages together and carries a
// frame's speculation, batches and fallback. Host code; the only waits on
// the host are for a frame's pair total (when not speculating, and to
// confirm a speculative frame) and for the offsets of a frame cut into
// batches.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/binning.h"
#include "kernels/cuda_check.h"

namespace cr {

namespace {

/// The sort's key width: enough bits for every bin id.
int pair_key_bits(int bins) {
    int bits = 1;
    while ((1ll << bits) < bins) ++bits;
    return bits;
}

/// Each circle's bin count, computed as the scan reads it (fused bin.count).
auto bin_counts(const float4* geom, const TileGrid& g) {
    return thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), BinsOfCircle{geom, g});
}

/// Marks stage `name` (part of the course's Render) when timing.
void mark(const BinContext& ctx, const char* name) {
    if (ctx.timeline) ctx.timeline->mark(name, "Render", ctx.stream);
}

}  // namespace

// ------------------------------------------------------------------ stages

void SortedStages::reserve(int64_t circles, int bins, const BinContext& ctx) {
    offsets_.reserve("bin.offsets", std::max<int64_t>(circles, 1), ctx.tally);
    total_.reserve("bin.total", 1, ctx.tally);
    start_.reserve("bin.tile_start", bins, ctx.tally);
    end_.reserve("bin.tile_end", bins, ctx.tally);
    size_t scan_bytes = 0;
    CR_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, bin_counts(nullptr, TileGrid{}), offsets_.get(),
                                          circles, ctx.stream));
    temp_.reserve("bin.cub_temp", scan_bytes, ctx.tally, 1.25);
}

void SortedStages::reserve_pairs(uint64_t pairs, int key_bits, const BinContext& ctx) {
    keys_.reserve("bin.pair_keys", pairs, ctx.tally, 1.25);
    keys_alt_.reserve("bin.pair_keys_alt", pairs, ctx.tally, 1.25);
    values_.reserve("bin.pair_circles", pairs, ctx.tally, 1.25);
    values_alt_.reserve("bin.pair_circles_alt", pairs, ctx.tally, 1.25);
    // One scratch for both CUB calls of a frame: reserve() sized it for the
    // scan of the counts, and it only grows, so the sort decides here.
    size_t sort_bytes = 0;
    const int n = static_cast<int>(std::min<uint64_t>(pairs, INT32_MAX));
    cub::DoubleBuffer<unsigned int> k(keys_.get(), keys_alt_.get());
    cub::DoubleBuffer<int> v(values_.get(), values_alt_.get());
    CR_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, n, 0, key_bits, ctx.stream));
    temp_.reserve("bin.cub_temp", sort_bytes, ctx.tally, 1.25);
}

void SortedStages::scan(const DeviceCircles& c, const TileGrid& g, const BinContext& ctx) {
    mark(ctx, "bin.scan");
    size_t bytes = temp_.size();
    CR_CUDA(cub::DeviceScan::ExclusiveSum(temp_.get(), bytes, bin_counts(c.geom, g), offsets_.get(), c.count,
                                          ctx.stream));
    launch_total(c, g, offsets_.get(), total_.get(), ctx.stream);
}

BinnedLists SortedStages::fill_sort_ranges(const DeviceCircles& c, const TileGrid& g, const PairBatch& batch,
                                           bool fill_per_thread, int split_coarse, const BinContext& ctx) {
    const int bits = pair_key_bits(g.tile_count());
    const int n = static_cast<int>(batch.pairs);
    reserve_pairs(batch.pairs, bits, ctx);
    mark(ctx, "bin.fill");
    if (batch.speculative)
        launch_bin_prepare(total_.get(), batch.pairs, batch.tail_hint, keys_.get(), values_.get(), ctx.stream);
    FillLaunch fill;
    fill.c = c;
    fill.begin = batch.begin;
    fill.end = batch.end;
    fill.g = g;
    fill.offsets = offsets_.get();
    fill.base = batch.base;
    fill.limit = batch.pairs;
    fill.split_coarse = split_coarse;
    fill.keys = keys_.get();
    fill.values = values_.get();
    fill.per_thread = fill_per_thread;
    launch_bin_fill(fill, ctx.stream);
    mark(ctx, "bin.sort");
    cub::DoubleBuffer<unsigned int> k(keys_.get(), keys_alt_.get());
    cub::DoubleBuffer<int> v(values_.get(), values_alt_.get());
    size_t bytes = temp_.size();
    if (n > 0) CR_CUDA(cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, k, v, n, 0, bits, ctx.stream));
    mark(ctx, "bin.ranges");
    launch_bin_ranges(k.Current(), batch.pairs, g.tile_count(), split_coarse != 0, start_.get(), end_.get(),
                      ctx.stream);
    BinnedLists out;
    out.lists = TileLists{v.Current(), start_.get(), end_.get(), c.count};
    if (split_coarse != 0) {
        out.keys = k.Current();
        out.mask_coarse = split_coarse;
    }
    return out;
}

void CountingStages::reserve(int64_t circles, int bins, int chunks_per_sm, int split_coarse, bool staged,
                             const BinContext& ctx) {
    chunks_ = count_chunks(circles, bins, chunks_per_sm, split_coarse, staged);
    const size_t cells = size_t(bins) * size_t(chunks_.chunks);
    counts_.reserve("bin.chunk_counts", cells, ctx.tally);
    prefix_.reserve("bin.chunk_prefix", cells, ctx.tally);
    bin_totals_.reserve("bin.tile_totals", bins, ctx.tally);
    chunk_entries_.reserve("bin.chunk_entries", size_t(chunks_.chunks), ctx.tally);
    circle_ranges_.reserve("bin.circle_ranges", std::max<int64_t>(circles, 1), ctx.tally);
    start_.reserve("bin.tile_start", bins, ctx.tally);
    end_.reserve("bin.tile_end", bins, ctx.tally);
    total_.reserve("bin.total", 1, ctx.tally);
}

void CountingStages::count(const DeviceCircles& c, const TileGrid& g, bool total_now, const BinContext& ctx) {
    mark(ctx, "bin.count");
    launch_bin_count(c, g, chunks_, counts_.get(), chunk_entries_.get(), circle_ranges_.get(), ctx.stream);
    mark(ctx, "bin.scan");
    launch_chunk_prefix(counts_.get(), g.tile_count(), chunks_, prefix_.get(), bin_totals_.get(), ctx.stream);
    if (total_now) launch_count_total(chunks_, chunk_entries_.get(), total_.get(), ctx.stream);
}

BinnedLists CountingStages::place(const DeviceCircles& c, const TileGrid& g, unsigned long long capacity,
                                  const BinContext& ctx) {
    const unsigned long long slots = std::max<unsigned long long>(capacity, 1);
    const bool split_next = chunks_.split_shift > 0;
    if (split_next) placed_pairs_.reserve("bin.placed_pairs", slots, ctx.tally, 1.25);
    else list_.reserve("bin.pair_circles", slots, ctx.tally, 1.25);
    mark(ctx, "bin.place");
    PlaceLaunch l;
    l.count = c.count;
    l.ranges = circle_ranges_.get();
    l.g = g;
    l.k = chunks_;
    l.prefix = prefix_.get();
    l.tile_totals = bin_totals_.get();
    l.chunk_entries = chunk_entries_.get();
    l.capacity = capacity;
    l.list = split_next ? nullptr : list_.get();
    l.pairs = split_next ? placed_pairs_.get() : nullptr;
    l.tile_start = start_.get();
    l.tile_end = end_.get();
    l.total = total_.get();
    launch_bin_place(l, ctx.stream);
    BinnedLists out;
    out.lists = TileLists{split_next ? nullptr : list_.get(), start_.get(), end_.get(), c.count};
    if (split_next) {
        out.pairs = placed_pairs_.get();
        out.mask_coarse = 1 << chunks_.split_shift;
    }
    return out;
}

void CompactStage::reserve(int bins, const BinContext& ctx) {
    start_.reserve("bin.tile_start", bins, ctx.tally);
    end_.reserve("bin.tile_end", bins, ctx.tally);
}

TileLists CompactStage::compact(const DeviceCircles& c, const TileGrid& g, const BinContext& ctx) {
    lists_.reserve("bin.compact_lists", std::max<uint64_t>(1, uint64_t(g.tile_count()) * uint64_t(c.count)), ctx.tally);
    mark(ctx, "bin.compact");
    launch_bin_compact(c, g, lists_.get(), start_.get(), end_.get(), ctx.stream);
    return TileLists{lists_.get(), start_.get(), end_.get(), c.count};
}

TileLists SplitStage::split(const TileGrid& tiles, const BinnedLists& bins, uint64_t entries, const BinContext& ctx) {
    const int coarse = bins.lists.coarse;
    if ((!bins.keys && !bins.pairs) || bins.mask_coarse != coarse || coarse == 1)
        throw std::logic_error("bin.split: the lists of bins of " + std::to_string(coarse) + "x" +
                               std::to_string(coarse) + " tiles carry no tile masks for them (masks made for " +
                               std::to_string(bins.mask_coarse) + "x" + std::to_string(bins.mask_coarse) +
                               " bins: SortedStages' split_coarse, CountingStages::reserve's split_coarse)");
    const uint64_t slots = std::max<uint64_t>(1, entries * uint64_t(coarse) * uint64_t(coarse));
    if (slots > UINT32_MAX) throw std::invalid_argument("bin.split: more than 2^32 list entries");
    lists_.reserve("bin.split_lists", slots, ctx.tally, 1.25);
    start_.reserve("bin.split_start", tiles.tile_count(), ctx.tally);
    end_.reserve("bin.split_end", tiles.tile_count(), ctx.tally);
    mark(ctx, "bin.split");
    launch_bin_split(tiles, bins.lists, bins.keys, bins.keys ? nullptr : bins.pairs, lists_.get(), start_.get(),
                     end_.get(), ctx.stream);
    TileLists out{lists_.get(), start_.get(), end_.get(), bins.lists.count};
    out.total = bins.lists.total;
    out.capacity = bins.lists.capacity;
    out.bins_x = tiles.tiles_x;
    return out;
}

// ------------------------------------------------------------------- paths

namespace {

/// The lengths end[i] - start[i] of runs.size() list runs (waits for the stream).
void read_runs(const DeviceBuffer<unsigned int>& start, const DeviceBuffer<unsigned int>& end, std::vector<int>& runs,
               cudaStream_t stream) {
    CR_CUDA(cudaStreamSynchronize(stream));
    std::vector<unsigned int> st(runs.size()), en(runs.size());
    if (runs.empty()) return;
    CR_CUDA(cudaMemcpy(st.data(), start.get(), st.size() * 4, cudaMemcpyDeviceToHost));
    CR_CUDA(cudaMemcpy(en.data(), end.get(), en.size() * 4, cudaMemcpyDeviceToHost));
    for (size_t b = 0; b < runs.size(); ++b) runs[b] = static_cast<int>(en[b] - st[b]);
}

/// Lists per bin of the setup's plan.coarse x plan.coarse tiles.
TileLists per_bin(TileLists l, const BinningSetup& s) {
    l.coarse = s.plan.coarse;
    l.bins_x = s.bins.tiles_x;
    return l;
}

/// Each tile's list length when every tile walks its bin's list (runs per bin).
void bin_loads_per_tile(const DeviceBuffer<unsigned int>& start, const DeviceBuffer<unsigned int>& end,
                        const BinningSetup& s, cudaStream_t stream, std::vector<int>& loads) {
    std::vector<int> runs(static_cast<size_t>(s.bins.tile_count()));
    read_runs(start, end, runs, stream);
    const TileLists map = per_bin(TileLists{nullptr, nullptr, nullptr, 0}, s);
    for (size_t t = 0; t < loads.size(); ++t)
        loads[t] = runs[map.bin_of(static_cast<int>(t) % s.tiles.tiles_x, static_cast<int>(t) / s.tiles.tiles_x)];
}

/// A path's frame totals: the speculation (PairSpeculation, kernels/bin_plan.h),
/// the last frame's pair total, and the host waits that read a total.
class FrameTotals {
public:
    FrameTotals(const BinningSetup& s, Speculation mode)
        : batch_limit_(pair_batch_limit(s.plan, s.max_pairs_per_batch)) {
        spec_.reset(mode, batch_limit_);
    }
    /// Most pairs (entries) one pass bins.
    unsigned long long batch_limit() const { return batch_limit_; }
    /// Room for this frame when it speculates (0: it waits for its total).
    unsigned long long capacity() const { return spec_.capacity(); }
    /// Slots the speculative frame expects to leave unused.
    unsigned long long tail_hint() const { return spec_.capacity() - spec_.last_total(); }
    /// The frame's pair total, copied from the device; waits for it.
    unsigned long long wait(const unsigned long long* total, const BinContext& ctx) {
        CR_CUDA(cudaMemcpyAsync(host_.get(), total, sizeof(unsigned long long), cudaMemcpyDeviceToHost, ctx.stream));
        CR_CUDA(cudaStreamSynchronize(ctx.stream));
        return *host_.get();
    }
    /// Records the frame's true total (its work counts; the next frame's room).
    void note(unsigned long long pairs) {
        pairs_ = static_cast<long long>(pairs);
        spec_.note_total(pairs);
    }
    /// After a speculative pass binned with room for capacity(): waits for
    /// the true total; true when it fit (noted), else false with it in
    /// `pairs` (the frame is binned again). The frame's GPU work ends on the
    /// timeline before the wait; a redo's first stage counts it.
    bool confirm(const unsigned long long* total, const BinContext& ctx, unsigned long long& pairs) {
        if (ctx.timeline) ctx.timeline->close(ctx.stream);
        pairs = wait(total, ctx);
        if (pairs <= spec_.capacity()) return note(pairs), true;
        if (ctx.timeline) ctx.timeline->reopen();
        spec_.missed();
        return false;
    }
    long long pairs() const { return pairs_; }
    long long redos() const { return spec_.misses(); }

private:
    unsigned long long batch_limit_;
    PairSpeculation spec_;
    PinnedHost<unsigned long long> host_{1};
    long long pairs_ = 0;
};

/// The shading pass over the per-bin lists `b`, binned with room for `room`
/// entries: lists per bin of the plan's coarse x coarse tiles, the overflow
/// check where `speculative_total` (the frame's true total, on the device)
/// is given, and bin.split where planned.
ShadePass pass_of(BinnedLists b, unsigned long long room, const unsigned long long* speculative_total,
                  SplitStage& split, const BinningSetup& s, const BinContext& ctx) {
    b.lists = per_bin(b.lists, s);
    if (speculative_total) {
        b.lists.total = speculative_total;
        b.lists.capacity = room;
    }
    ShadePass p;
    p.lists = s.plan.split ? split.split(s.tiles, b, room, ctx) : b.lists;
    p.speculative = speculative_total != nullptr;
    return p;
}

/// Each tile's list length from per-tile runs after bin.split, else from per-bin runs.
void loads_of(const BinningSetup& s, const SplitStage& split, const DeviceBuffer<unsigned int>& bin_start,
              const DeviceBuffer<unsigned int>& bin_end, cudaStream_t stream, std::vector<int>& loads) {
    if (s.plan.split) return read_runs(split.tile_start(), split.tile_end(), loads, stream);
    bin_loads_per_tile(bin_start, bin_end, s, stream, loads);
}

/// Few circles: no binning, every tile scans every circle.
class DirectPath final : public BinningPath {
public:
    explicit DirectPath(const BinningSetup& s) : setup_(s) {}
    ShadePass first_pass(const DeviceCircles& c) override {
        pairs_ = static_cast<long long>(c.count) * setup_.tiles.tile_count();
        ShadePass p;
        p.lists = TileLists{nullptr, nullptr, nullptr, c.count};
        return p;
    }
    bool next_pass(const DeviceCircles&, ShadePass&) override { return false; }
    long long pairs() override { return pairs_; }
    std::string path() const override { return describe_path(setup_.plan, false, false); }
    bool binned() const override { return false; }
    /// The tiles binning would have listed, counted on the host from geom.
    void tile_loads(const DeviceCircles& c, std::vector<int>& loads) override {
        std::vector<float4> g(static_cast<size_t>(c.count));  // the caller has waited for the stream
        if (!g.empty()) CR_CUDA(cudaMemcpy(g.data(), c.geom, g.size() * sizeof(float4), cudaMemcpyDeviceToHost));
        const TileGrid& grid = setup_.tiles;
        const float iw = 1.f / grid.width, ih = 1.f / grid.height;
        for (const auto& q : g) for_each_listed_tile(q.x, q.y, q.z, grid, iw, ih, [&](int t) { ++loads[t]; });
    }

private:
    BinningSetup setup_;
    long long pairs_ = 0;
};

/// bin.compact, then the shading: no host wait in the frame.
class CompactPath final : public BinningPath {
public:
    CompactPath(const BinningSetup& s, const BinContext& ctx) : setup_(s), ctx_(ctx) {
        stage_.reserve(s.bins.tile_count(), ctx);
    }
    ShadePass first_pass(const DeviceCircles& c) override {
        ShadePass p;
        p.lists = per_bin(stage_.compact(c, setup_.bins, ctx_), setup_);
        unread_ = true;
        return p;
    }
    bool next_pass(const DeviceCircles&, ShadePass&) override { return false; }
    /// bin.compact leaves the total on the device: adds up the bins' runs.
    long long pairs() override {
        if (unread_) {
            std::vector<int> runs(static_cast<size_t>(setup_.bins.tile_count()));
            read_runs(stage_.bin_start(), stage_.bin_end(), runs, ctx_.stream);
            pairs_ = 0;
            for (int r : runs) pairs_ += r;
            unread_ = false;
        }
        return pairs_;
    }
    std::string path() const override { return describe_path(setup_.plan, true, false); }
    void tile_loads(const DeviceCircles&, std::vector<int>& loads) override {
        bin_loads_per_tile(stage_.bin_start(), stage_.bin_end(), setup_, ctx_.stream, loads);
    }

private:
    BinningSetup setup_;
    BinContext ctx_;
    CompactStage stage_;
    bool unread_ = false;
    long long pairs_ = 0;
};

/// The sorting stages, speculative while the last frame's total fits one
/// batch, else in batches of circles (ftb: last batch first), each split
/// where planned. `split` may be shared with the counted path it is the
/// fallback of (one buffer for both).
class SortedPath final : public BinningPath {
public:
    SortedPath(const BinningSetup& s, const BinContext& ctx, Speculation mode, SplitStage* shared_split = nullptr)
        : setup_(s), ctx_(ctx), split_(shared_split ? shared_split : &own_split_), totals_(s, mode) {
        stages_.reserve(s.circles, s.bins.tile_count(), ctx);
    }
    ShadePass first_pass(const DeviceCircles& c) override {
        stages_.scan(c, setup_.bins, ctx_);
        if (totals_.capacity() == 0) return start_batches(c, totals_.wait(stages_.total(), ctx_));
        return batch_pass(c, PairBatch{0, c.count, 0, totals_.capacity(), true, totals_.tail_hint()}, true, true);
    }
    bool next_pass(const DeviceCircles& c, ShadePass& pass) override {
        unsigned long long pairs = 0;
        if (pass.speculative) {
            if (totals_.confirm(stages_.total(), ctx_, pairs)) return false;
            pass = start_batches(c, pairs);
            return true;
        }
        if (next_ >= batches_.size()) return false;
        pass = batch_pass(c, batches_[next_], false, next_ + 1 == batches_.size());
        ++next_;
        return true;
    }
    /// The counted path's fallback: bin.scan, then the frame's `pairs` pairs in batches.
    ShadePass scan_and_batches(const DeviceCircles& c, unsigned long long pairs) {
        stages_.scan(c, setup_.bins, ctx_);
        return start_batches(c, pairs);
    }
    long long pairs() override { return totals_.pairs(); }
    std::string path() const override { return describe_path(setup_.plan, true, false); }
    long long redos() const override { return totals_.redos(); }
    void tile_loads(const DeviceCircles&, std::vector<int>& loads) override {
        loads_of(setup_, *split_, stages_.bin_start(), stages_.bin_end(), ctx_.stream, loads);
    }

private:
    /// Cuts the frame into batches of at most batch_limit() pairs (the
    /// offsets are copied back only when it has more) and returns the first.
    ShadePass start_batches(const DeviceCircles& c, unsigned long long pairs) {
        totals_.note(pairs);
        const unsigned long long cap = totals_.batch_limit();
        if (pairs <= cap) {
            batches_.assign(1, PairBatch{0, c.count, 0, pairs});
        } else {
            std::vector<unsigned long long> off(static_cast<size_t>(c.count));
            // on our stream: a plain cudaMemcpy runs on the legacy default stream, which does not wait
            // for a non-blocking stream, so it could read the offsets before bin.scan has written them
            CR_CUDA(cudaMemcpyAsync(off.data(), stages_.offsets(), c.count * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, ctx_.stream));
            CR_CUDA(cudaStreamSynchronize(ctx_.stream));
            batches_ = cut_pair_batches(off, pairs, cap);
        }
        if (setup_.front_to_back) std::reverse(batches_.begin(), batches_.end());
        next_ = 1;
        return batch_pass(c, batches_[0], true, batches_.size() == 1);
    }

    /// bin.fill, bin.sort and bin.ranges of one batch, and bin.split where planned.
    ShadePass batch_pass(const DeviceCircles& c, const PairBatch& batch, bool first, bool last) {
        const int split_coarse = setup_.plan.split ? setup_.plan.coarse : 0;
        const BinnedLists b = stages_.fill_sort_ranges(c, setup_.bins, batch, setup_.fill_per_thread, split_coarse, ctx_);
        ShadePass p = pass_of(b, batch.pairs, batch.speculative ? stages_.total() : nullptr, *split_, setup_, ctx_);
        p.first = first;
        p.last = last;
        return p;
    }

    BinningSetup setup_;
    BinContext ctx_;
    SortedStages stages_;
    SplitStage own_split_;
    SplitStage* split_;
    FrameTotals totals_;
    std::vector<PairBatch> batches_;
    size_t next_ = 0;  ///< the next batch to bin
};

/// The counting sort, speculative like SortedPath, split where planned; a
/// frame with more entries than one batch takes the sorting stages in
/// batches instead (its fallback).
class CountedPath final : public BinningPath {
public:
    CountedPath(const BinningSetup& s, const BinContext& ctx)
        : setup_(s), ctx_(ctx), fallback_(s, ctx, Speculation::Off, &split_), totals_(s, s.speculation) {
        stages_.reserve(s.circles, s.bins.tile_count(), s.count_chunks_per_sm, s.plan.split ? s.plan.coarse : 1,
                        s.staged_place, ctx);
    }
    ShadePass first_pass(const DeviceCircles& c) override {
        in_fallback_ = false;
        stages_.count(c, setup_.bins, totals_.capacity() == 0, ctx_);
        if (totals_.capacity() == 0) return after_total(c, totals_.wait(stages_.total(), ctx_));
        return place_pass(c, totals_.capacity(), true);
    }
    bool next_pass(const DeviceCircles& c, ShadePass& pass) override {
        if (in_fallback_) return fallback_.next_pass(c, pass);
        unsigned long long pairs = 0;
        if (!pass.speculative || totals_.confirm(stages_.total(), ctx_, pairs)) return false;
        pass = after_total(c, pairs);
        return true;
    }
    long long pairs() override { return totals_.pairs(); }
    std::string path() const override { return describe_path(setup_.plan, true, !in_fallback_); }
    long long redos() const override { return totals_.redos(); }
    void tile_loads(const DeviceCircles& c, std::vector<int>& loads) override {
        if (in_fallback_) return fallback_.tile_loads(c, loads);
        loads_of(setup_, split_, stages_.bin_start(), stages_.bin_end(), ctx_.stream, loads);
    }

private:
    /// The frame's true total known on the host: bin.place with room for
    /// exactly that, or the fallback for more than one batch.
    ShadePass after_total(const DeviceCircles& c, unsigned long long pairs) {
        totals_.note(pairs);
        if (pairs <= totals_.batch_limit()) return place_pass(c, pairs, false);
        in_fallback_ = true;
        return fallback_.scan_and_batches(c, pairs);
    }

    /// bin.place with room for `capacity` entries, and bin.split where planned.
    ShadePass place_pass(const DeviceCircles& c, unsigned long long capacity, bool speculative) {
        return pass_of(stages_.place(c, setup_.bins, capacity, ctx_), capacity, speculative ? stages_.total() : nullptr,
                       split_, setup_, ctx_);
    }

    BinningSetup setup_;
    BinContext ctx_;
    CountingStages stages_;
    SplitStage split_;  ///< declared before fallback_, which shares it
    SortedPath fallback_;
    FrameTotals totals_;
    bool in_fallback_ = false;  ///< the last frame took the sorting stages
};

}  // namespace

std::unique_ptr<BinningPath> make_binning_path(const BinningSetup& s, const BinContext& ctx) {
    if (s.plan.direct) return std::make_unique<DirectPath>(s);
    if (s.plan.compact) return std::make_unique<CompactPath>(s, ctx);
    if (s.plan.count) return std::make_unique<CountedPath>(s, ctx);
    return std::make_unique<SortedPath>(s, ctx, s.speculation);
}

}  // namespace cr
