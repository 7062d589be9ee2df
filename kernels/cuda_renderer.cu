// The CUDA renderer's host side: it owns the per-stage buffer groups
// (kernels/frame_state.h), queues the frame's stages on one stream in frame
// order (clear -> advance -> bin.pack -> bin.scan/fill/sort/ranges or
// bin.count/scan/place, then bin.split, or bin.compact -> shade), and times each with
// cudaEvents (kernels/stage_timeline.h). Which binning path and culling a
// scene takes is decided at setup by plan_binning (kernels/bin_plan.h, host
// code tested on the CPU); the options are checked before the renderer is
// built (kernels/cuda_options.cpp). The kernels live one stage a file
// (clear.cu, advance.cu, bin.cu and bin_count.cu, shade_*.cu);
// this file only orders them. The image stays on the device until image().
#include <cuda_profiler_api.h>

#include <dlfcn.h>

#include <algorithm>
#include <numeric>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "kernels/bin_plan.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_renderer.h"
#include "kernels/frame_state.h"
#include "kernels/stage_timeline.h"
#include "render/core/numbers.h"

namespace cr {

namespace {

class CudaRenderer final : public Renderer {
public:
    CudaRenderer(KernelKind kind, CudaOptions options)
        : kind_(kind), opt_(options), timeline_(options.sync_stages) {
        tally_.limit = options.memory_limit;
    }

    std::string name() const override {
        switch (kind_) {
            case KernelKind::Naive: return "naive";
            case KernelKind::Tiled: return "tiled";
            case KernelKind::Persistent: return "persistent";
            case KernelKind::FrontToBack: return "ftb";
            default: return "unordered";
        }
    }

    void setup(const Scene& s, int w, int h) override {
        require_valid_image_size(w, h);
        if (s.count() > static_cast<size_t>(INT32_MAX))
            throw std::invalid_argument("scenes are limited to 2^31-1 circles");
        cudaStream_t st = stream_.get();
        CR_CUDA(cudaStreamSynchronize(st));
        width_ = w;
        height_ = h;
        frame_ = 0;
        grid_ = make_tile_grid(w, h, opt_.tile_size == 8 ? 8 : 16);
        bounds_ = value_bounds(s);
        plan_ = plan_binning(s, grid_, kind_, opt_, count_tile_limit(), bounds_.valid);
        bin_grid_ = coarse_grid(grid_, plan_.coarse);
        circles_.upload(s, &tally_, st);
        image_.reserve("image", size_t(w) * h, &tally_);
        if (binned_kind()) bins_.reserve_scene(circles_.count, bin_grid_.tile_count(), &tally_, st);
        if (binned_kind() && plan_.count)
            bins_.reserve_counting(circles_.count, bin_grid_.tile_count(), opt_.count_chunks_per_sm,
                                   plan_.split ? plan_.coarse : 1, &tally_, st);
        if (kind_ == KernelKind::Persistent) {
            order_.reserve(grid_.tile_count(), &tally_, st);
            persistent_blocks_[0] = persistent_block_count(grid_.tile, opt_.rows_per_thread, circles_.shade, stop_bit());
            persistent_blocks_[1] =
                persistent_block_count(grid_.tile, opt_.rows_per_thread, circles_.shade, plan_cull() | stop_bit());
        }
        host_pin_.release();
        host_image_ = Image();
        timeline_.reset();
        clear_pending_ = false;
        geom_stale_ = true;
        pairs_unread_ = false;
        spec_.reset(opt_.speculation, pair_batch_limit());
    }

    /// The tiled kernels start the next shading launch from the background
    /// instead (clear_pending_): the clear costs no launch and no pass over
    /// the image. Anything that reads the image first runs the clear.
    void clear() override {
        timeline_.reset();
        timeline_.mark("clear", "Clear", stream_.get());
        if (binned_kind()) clear_pending_ = true;
        else launch_clear(image_.get(), width_, height_, circles_.shade, stream_.get());
    }

    void advance() override {
        timeline_.mark("advance", "Advance", stream_.get());
        launch_advance(circles_.view().soa, static_cast<int>(circles_.motion), stream_.get());
        if (circles_.motion != Motion::None) geom_stale_ = true;
        ++frame_;
    }

    void render() override {
        const DeviceCircles c = circles_.view();
        cudaStream_t s = stream_.get();
        if (geom_stale_) {  // static scenes pack once, after setup
            timeline_.mark("bin.pack", "Render", s);
            launch_pack_geometry(c, s);
            geom_stale_ = false;
        }
        last_binned_ = false;
        last_counted_ = false;
        pairs_unread_ = false;
        if (!binned_kind()) {
            shade_per_pixel(c);
        } else if (plan_.direct) {
            last_pairs_ = static_cast<long long>(c.count) * grid_.tile_count();  // few circles: every block scans all
            shade_lists(c, TileLists{nullptr, nullptr, nullptr, c.count});
        } else if (plan_.compact) {
            render_compacted(c);
        } else if (plan_.count) {
            render_counted(c);
        } else {
            render_binned(c);
        }
        timeline_.close(s);
    }

    const Image& image() override {
        cudaStream_t s = stream_.get();
        run_pending_clear();
        if (host_image_.width != width_ || host_image_.height != height_) {
            host_pin_.release();
            host_image_ = Image(width_, height_);
            host_pin_.pin(host_image_.data.data(), host_image_.data.size() * sizeof(float));
        }
        timeline_.mark("download", "", s);
        CR_CUDA(cudaMemcpyAsync(host_image_.data.data(), image_.get(), size_t(width_) * height_ * sizeof(float4),
                                cudaMemcpyDeviceToHost, s));
        timeline_.close(s);
        CR_CUDA(cudaStreamSynchronize(s));
        return host_image_;
    }

    std::vector<StageTime> timings() override { return timeline_.read(); }
    int frame() const override { return frame_; }
    void synchronize() override { CR_CUDA(cudaStreamSynchronize(stream_.get())); }
    void profiler_range(bool on) override {
        synchronize();
        CR_CUDA(on ? cudaProfilerStart() : cudaProfilerStop());
    }
    GpuImage gpu_image() const override {
        run_pending_clear();
        return {reinterpret_cast<const float*>(image_.get()), stream_.get()};
    }
    size_t peak_device_bytes() const override { return tally_.peak; }
    bool is_incorrect_by_design() const override { return kind_ == KernelKind::Unordered; }

    WorkCounts work() override {
        if (pairs_unread_) {  // bin.compact leaves the total on the device: add up the bins' runs
            std::vector<int> loads(static_cast<size_t>(bin_grid_.tile_count()));
            read_bin_runs(loads);
            last_pairs_ = std::accumulate(loads.begin(), loads.end(), 0ll);
            pairs_unread_ = false;
        }
        WorkCounts w;
        if (!binned_kind()) {
            w.coverage_tests = circles_.count * static_cast<long long>(width_) * height_;
            return w;
        }
        w.circle_tile_pairs = last_pairs_;
        w.binning_redos = spec_.misses();
        w.path = describe_path(plan_, last_binned_, last_counted_);
        // an upper bound: every tile of a bin tests the bin's list (after
        // bin.split each tile tests only its own, fewer)
        const long long per_pair = last_binned_ ? static_cast<long long>(plan_.coarse) * plan_.coarse : 1;
        w.coverage_tests = last_pairs_ * per_pair * grid_.tile * grid_.tile;
        return w;
    }

    TileLoads tile_loads() override {
        if (!binned_kind()) return {};
        TileLoads t{grid_.tiles_x, grid_.tiles_y, grid_.tile, std::vector<int>(grid_.tile_count(), 0)};
        CR_CUDA(cudaStreamSynchronize(stream_.get()));
        if (last_binned_) read_binned_loads(t.loads);
        else count_direct_loads(t.loads);
        return t;
    }

private:
    bool binned_kind() const {
        return kind_ == KernelKind::Tiled || kind_ == KernelKind::Persistent || kind_ == KernelKind::FrontToBack;
    }

    /// The deferred clear, for whoever reads the image before a shading
    /// launch has written the background.
    void run_pending_clear() const {
        if (!clear_pending_) return;
        launch_clear(image_.get(), width_, height_, circles_.shade, stream_.get());
        clear_pending_ = false;
    }

    /// naive and unordered: one shading kernel over the packed circles.
    void shade_per_pixel(const DeviceCircles& c) {
        cudaStream_t s = stream_.get();
        timeline_.mark("shade", "Render", s);
        if (kind_ == KernelKind::Naive) launch_shade_naive(c, image_.get(), width_, height_, s);
        else launch_shade_unordered(c, image_.get(), width_, height_, s);
    }

    /// The plan's culling for small circles (kShadeRowCull or kShadeStripMask).
    int plan_cull() const { return (plan_.row_cull ? kShadeRowCull : 0) | (plan_.strips ? kShadeStripMask : 0); }

    /// kShadeCoalesce when the plan stops early (exact kernels), else 0.
    int stop_bit() const { return plan_.coalesce ? kShadeCoalesce : 0; }

    /// The shading's culling: the plan's, only with binned lists.
    int cull_bits(const TileLists& lists) const { return lists.list ? plan_cull() : 0; }

    /// `first`/`last`: ftb's launches of a frame (batches go last first); the
    /// other kernels ignore them.
    void shade_lists(const DeviceCircles& c, TileLists lists, const int* order = nullptr, bool first = true,
                     bool last = true) {
        cudaStream_t s = stream_.get();
        timeline_.mark("shade", "Render", s);
        if (kind_ == KernelKind::FrontToBack) {
            if (!(first && last)) {
                ftb_acc_.reserve("shade.ftb_state", size_t(width_) * height_, &tally_);
                run_pending_clear();  // every batch's launch adds to the image's alpha
            }
            launch_shade_ftb(c, lists, grid_, image_.get(), ftb_acc_.get(), first, last, clear_pending_, cull_bits(lists), s);
        } else {
            const bool persistent = kind_ == KernelKind::Persistent;
            if (persistent) CR_CUDA(cudaMemsetAsync(order_.counter.get(), 0, sizeof(unsigned int), s));
            ShadeLaunch l{c, lists, grid_, image_.get(), clear_pending_, persistent, order_.counter.get(), order,
                          persistent_blocks_[cull_bits(lists) != 0 ? 1 : 0], bounds_};
            launch_shade_tiled(l, opt_.rows_per_thread, opt_.shade_variant | cull_bits(lists) | stop_bit(), s);
        }
        if (!lists.total) clear_pending_ = false;  // else render_binned decides, once it knows the frame fit
    }

    /// bin.compact, then the shading: no host wait in the frame.
    void render_compacted(const DeviceCircles& c) {
        const int* lists = bins_.compact(c, bin_grid_, &tally_, stream_.get(), &timeline_);
        last_binned_ = true;
        pairs_unread_ = true;
        const TileLists tl = binned_lists(lists, c.count);
        shade_lists(c, tl, kind_ == KernelKind::Persistent ? heavy_first_order(tl) : nullptr);
    }

    /// The frame's pair total, copied from the device after bin.scan; waits
    /// for it.
    unsigned long long wait_for_total() {
        cudaStream_t s = stream_.get();
        CR_CUDA(cudaMemcpyAsync(h_total_.get(), bins_.total.get(), sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, s));
        CR_CUDA(cudaStreamSynchronize(s));
        return *h_total_.get();
    }

    /// Batches of circles, in input order, of at most pair_batch_limit()
    /// pairs each (cut_pair_batches: one batch unless the frame has more
    /// pairs than that; then the offsets are copied back to cut the batches).
    std::vector<PairBatch> plan_batches(unsigned long long pairs, int64_t count) {
        const unsigned long long cap = pair_batch_limit();
        if (pairs <= cap) return {PairBatch{0, count, 0, pairs}};
        std::vector<unsigned long long> off(static_cast<size_t>(count));
        // on the renderer's stream: a plain cudaMemcpy runs on the legacy default stream, which does not
        // wait for our non-blocking stream, so it could read the offsets before bin.scan has written them
        CR_CUDA(cudaMemcpyAsync(off.data(), bins_.offsets.get(), count * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, stream_.get()));
        CR_CUDA(cudaStreamSynchronize(stream_.get()));
        return cut_pair_batches(off, pairs, cap);
    }

    /// Binning and shading of a frame with more circle-tile tests than the
    /// direct path takes. When the last frame's total fits one batch, this
    /// one is binned speculatively with room for that total plus slack and
    /// no wait on the host inside the frame (kernels/bin.cu); the host waits
    /// once at the end, and redoes the frame in the rare case it had more.
    void render_binned(const DeviceCircles& c) {
        bins_.count_and_scan(c, bin_grid_, stream_.get(), &timeline_);
        last_binned_ = true;
        if (spec_.capacity() > 0 && speculate(c)) return;
        shade_in_batches(c, wait_for_total());
    }

    /// The counting sort (kernels/bin_count.cu), speculative like
    /// render_binned; a frame with more entries than one batch takes the
    /// sorting stages in batches instead.
    void render_counted(const DeviceCircles& c) {
        bins_.count_tiles(c, bin_grid_, spec_.capacity() == 0, stream_.get(), &timeline_);
        last_binned_ = true;
        if (spec_.capacity() > 0 && speculate(c)) return;
        const unsigned long long pairs = wait_for_total();
        if (pairs <= pair_batch_limit()) {
            note_total(pairs);
            return place_and_shade(c, pairs, false);
        }
        last_counted_ = false;  // the speculative pass may have set it
        bins_.count_and_scan(c, bin_grid_, stream_.get(), &timeline_);
        shade_in_batches(c, pairs);
    }

    /// bin.place of the counting sort with room for `capacity` entries, and
    /// bin.split where planned, then the shading (`speculative`: the true
    /// total is only on the device).
    void place_and_shade(const DeviceCircles& c, unsigned long long capacity, bool speculative) {
        last_counted_ = true;
        TileLists lists = binned_lists(bins_.place(c, bin_grid_, capacity, &tally_, stream_.get(), &timeline_), c.count);
        if (speculative) check_capacity(lists, capacity);
        if (plan_.split) lists = bins_.split(grid_, lists, capacity, &tally_, stream_.get(), &timeline_);
        shade_lists(c, lists, kind_ == KernelKind::Persistent ? heavy_first_order(lists) : nullptr);
    }

    /// The sorting stages after bin.scan, for a frame of `pairs` pairs, in
    /// batches of pair_batch_limit() (ftb: last batch first).
    void shade_in_batches(const DeviceCircles& c, unsigned long long pairs) {
        note_total(pairs);
        std::vector<PairBatch> batches = plan_batches(pairs, c.count);
        if (kind_ == KernelKind::FrontToBack) std::reverse(batches.begin(), batches.end());  // front to back
        for (size_t i = 0; i < batches.size(); ++i) bin_and_shade(c, batches[i], i == 0, i + 1 == batches.size());
    }

    /// One speculative pass at spec_.capacity(); true when the frame fit
    /// (else nothing was shaded and the image is as before).
    bool speculate(const DeviceCircles& c) {
        const bool clear_was_pending = clear_pending_;
        const unsigned long long capacity = spec_.capacity();
        if (plan_.count) place_and_shade(c, capacity, true);
        else bin_and_shade(c, PairBatch{0, c.count, 0, capacity, true, capacity - spec_.last_total()}, true, true);
        timeline_.close(stream_.get());  // the frame's GPU work ends here, not after the host's wait
        const unsigned long long pairs = wait_for_total();
        if (pairs <= capacity) {
            clear_pending_ = false;
            note_total(pairs);
            return true;
        }
        timeline_.reopen();  // the redo's first stage counts the wait
        clear_pending_ = clear_was_pending;
        spec_.missed();
        return false;
    }

    /// Most pairs binned at once (pair_batch_limit of the plan, kernels/bin_plan.h).
    unsigned long long pair_batch_limit() const { return cr::pair_batch_limit(plan_, opt_.max_pairs_per_batch); }

    /// Records the frame's pair total (for the work counts) and sizes the
    /// next frame's speculative capacity (PairSpeculation::note_total).
    void note_total(unsigned long long pairs) {
        last_pairs_ = static_cast<long long>(pairs);
        spec_.note_total(pairs);
    }

    /// bin.fill, bin.sort and bin.ranges of one batch, then its shading
    /// (`first`/`last`: the frame's first and last batch shaded).
    void bin_and_shade(const DeviceCircles& c, const PairBatch& batch, bool first, bool last) {
        const int* sorted = bins_.fill_sort_ranges(c, bin_grid_, batch, opt_.fill_per_thread,
                                                   plan_.split ? plan_.coarse : 0, &tally_, stream_.get(), &timeline_);
        TileLists lists = binned_lists(sorted, c.count);
        if (batch.speculative) check_capacity(lists, batch.pairs);
        if (plan_.split) lists = bins_.split(grid_, lists, batch.pairs, &tally_, stream_.get(), &timeline_);
        const int* order = kind_ == KernelKind::Persistent ? heavy_first_order(lists) : nullptr;
        shade_lists(c, lists, order, first, last);
    }

    /// Stage "bin.order" (persistent): tile ids sorted by load, heaviest first.
    const int* heavy_first_order(const TileLists& lists) {
        if (opt_.order == Choice::Off) return nullptr;  // row-major tile order
        timeline_.mark("bin.order", "Render", stream_.get());
        return order_.heavy_first(lists, grid_, stream_.get());
    }

    /// Speculative lists: the shading (and bin.split) compare the frame's
    /// true total, on the device, with the `capacity` they were binned for,
    /// and skip the frame when it is larger (TileLists::overflowed).
    void check_capacity(TileLists& lists, unsigned long long capacity) const {
        lists.total = bins_.total.get();
        lists.capacity = capacity;
    }

    /// The binned lists of the last bin.ranges: per bin of plan_.coarse x plan_.coarse tiles.
    TileLists binned_lists(const int* sorted, int64_t count) const {
        TileLists lists{sorted, bins_.tile_start.get(), bins_.tile_end.get(), count};
        lists.coarse = plan_.coarse;
        lists.bins_x = bin_grid_.tiles_x;
        return lists;
    }

    /// The lengths end[i] - start[i] of runs.size() list runs (waits for the stream).
    void read_runs(const DeviceBuffer<unsigned int>& start, const DeviceBuffer<unsigned int>& end,
                   std::vector<int>& runs) {
        CR_CUDA(cudaStreamSynchronize(stream_.get()));
        std::vector<unsigned int> st(runs.size()), en(runs.size());
        CR_CUDA(cudaMemcpy(st.data(), start.get(), st.size() * 4, cudaMemcpyDeviceToHost));
        CR_CUDA(cudaMemcpy(en.data(), end.get(), en.size() * 4, cudaMemcpyDeviceToHost));
        for (size_t b = 0; b < runs.size(); ++b) runs[b] = static_cast<int>(en[b] - st[b]);
    }

    /// Each bin's list length (bin_grid_.tile_count() entries; waits).
    void read_bin_runs(std::vector<int>& runs) { read_runs(bins_.tile_start, bins_.tile_end, runs); }

    /// Each tile's list length: its own after bin.split, else its bin's.
    void read_binned_loads(std::vector<int>& loads) {
        if (plan_.split) return read_runs(bins_.split_start, bins_.split_end, loads);
        std::vector<int> runs(static_cast<size_t>(bin_grid_.tile_count()));
        read_bin_runs(runs);
        const TileLists map = binned_lists(nullptr, 0);
        for (size_t t = 0; t < loads.size(); ++t)
            loads[t] = runs[map.bin_of(static_cast<int>(t) % grid_.tiles_x, static_cast<int>(t) / grid_.tiles_x)];
    }

    /// Direct mode lists every circle in every tile; the heat map shows the
    /// tiles binning would have listed, counted on the host from geom.
    void count_direct_loads(std::vector<int>& loads) {
        std::vector<float4> g(static_cast<size_t>(circles_.count));
        if (!g.empty())  // tile_loads() has waited for the stream that packed geom
            CR_CUDA(cudaMemcpy(g.data(), circles_.geom.get(), g.size() * sizeof(float4), cudaMemcpyDeviceToHost));
        const float iw = 1.f / width_, ih = 1.f / height_;
        for (const auto& q : g) for_each_listed_tile(q.x, q.y, q.z, grid_, iw, ih, [&](int t) { ++loads[t]; });
    }

    KernelKind kind_;
    CudaOptions opt_;
    DeviceMemoryTally tally_;
    CudaStream stream_;
    StageTimeline timeline_;
    PinnedHost<unsigned long long> h_total_{1};
    CircleBuffers circles_;
    BinBuffers bins_;
    TileOrderBuffers order_;
    DeviceBuffer<float4> image_;
    DeviceBuffer<float4> ftb_acc_;  ///< ftb: (C, T) per pixel between the batches of a frame
    Image host_image_;
    HostRegistration host_pin_;  ///< host_image_'s memory, page-locked; declared after it: released first
    int width_ = 0, height_ = 0, frame_ = 0;
    ValueBounds bounds_{};  ///< every value a pixel of the scene can hold (the early stop's trajectories)
    int persistent_blocks_[2] = {0, 0};  ///< the persistent kernel's grid: without culling, with the plan's
    TileGrid grid_{};
    TileGrid bin_grid_{};  ///< the grid binning lists circles on: bins of plan_.coarse x plan_.coarse tiles
    BinPlan plan_{};
    bool pairs_unread_ = false;  ///< last_pairs_ not yet read back after bin.compact
    long long last_pairs_ = 0;
    PairSpeculation spec_;  ///< the next frame's speculative pair capacity, and the frames binned twice
    bool last_binned_ = false;
    bool last_counted_ = false;             ///< the last frame's lists came from the counting sort (not its fallback)
    bool geom_stale_ = true;                ///< circles moved (or were uploaded) since bin.pack
    mutable bool clear_pending_ = false;    ///< clear() deferred into the next shading launch
};

/// True when the NVIDIA driver's library can be loaded: then "insufficient
/// driver" means a driver too old for this build, not a missing one.
bool driver_library_present() {
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (lib) dlclose(lib);
    return lib != nullptr;
}

}  // namespace

bool cuda_device_usable(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    cudaGetLastError();  // a failed query leaves no sticky error; clear it anyway
    if (e == cudaSuccess && n > 0) return true;
    if (why) {
        if (e == cudaErrorInsufficientDriver && driver_library_present())
            *why = "the NVIDIA driver is too old for this CUDA " + std::to_string(CUDART_VERSION / 1000) +
                   " build (" + cudaGetErrorString(e) + ")";
        else
            *why = "no NVIDIA GPU or driver found";
    }
    return false;
}

std::string cuda_device_description() {
    std::string why;
    if (!cuda_device_usable(&why)) return why;
    cudaDeviceProp p{};
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) return "CUDA device";
    char buf[256];
    std::snprintf(buf, sizeof buf, "%.200s (sm_%d%d, %d SMs, %.0f GiB)", p.name, p.major, p.minor,
                  p.multiProcessorCount, p.totalGlobalMem / 1073741824.0);
    return buf;
}

int cuda_device_count() {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    cudaGetLastError();
    return e == cudaSuccess ? n : 0;
}

unsigned long long cuda_device_total_bytes() {
    if (!cuda_device_usable()) return 0;
    cudaDeviceProp p{};
    int dev = 0;
    cudaGetDevice(&dev);
    return cudaGetDeviceProperties(&p, dev) == cudaSuccess ? p.totalGlobalMem : 0;
}

std::unique_ptr<Renderer> make_cuda_renderer(KernelKind kind, CudaOptions options) {
    validate_cuda_options(kind, options);
    std::string why;
    if (!cuda_device_usable(&why)) throw NoCudaDeviceError(why);
    return std::make_unique<CudaRenderer>(kind, options);
}

}  // namespace cr
