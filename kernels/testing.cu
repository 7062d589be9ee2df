#include <stdexcept>

#include "kernels/block_scan.cuh"
#include "kernels/cuda_check.h"
#include "kernels/binning.h"
#include "kernels/frame_state.h"
#include "kernels/testing.h"

namespace cr {

namespace {

template <class T>
std::vector<T> to_host(const DeviceBuffer<T>& b, size_t n) {
    std::vector<T> v(n);
    if (n) CR_CUDA(cudaMemcpy(v.data(), b.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
}

template <int THREADS>
__global__ void block_scan_test_kernel(const int* in, int* out, int* totals) {
    __shared__ int warp_totals[THREADS / 32];
    const int i = blockIdx.x * THREADS + threadIdx.x;
    int total = 0;
    out[i] = block_exclusive_scan<THREADS>(in[i], warp_totals, total);
    if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

template <int THREADS>
__global__ void block_scan_flags_test_kernel(const int* in, int* out, int* totals) {
    __shared__ int warp_counts[THREADS / 32];
    const int i = blockIdx.x * THREADS + threadIdx.x;
    int total = 0;
    out[i] = block_exclusive_scan_flags<THREADS>(in[i] != 0, warp_counts, total);
    if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

}  // namespace

namespace {

/// The runs start/end of `grid` and the first `entries` of `list`, on the host.
BinListing listing_of(const TileGrid& grid, const DeviceBuffer<unsigned int>& start,
                      const DeviceBuffer<unsigned int>& end, const int* list, uint64_t entries) {
    BinListing out{grid.tiles_x, grid.tiles_y, grid.tile, to_host(start, grid.tile_count()),
                   to_host(end, grid.tile_count()), std::vector<int>(entries)};
    if (entries) CR_CUDA(cudaMemcpy(out.list.data(), list, entries * sizeof(int), cudaMemcpyDeviceToHost));
    return out;
}

/// A scene's circles on the device, packed (bin.pack) on a stream of their
/// own, with the binning stages' context (the renderer's own calls);
/// `box_grid`: with their bin boxes for those bins (bin.compact's).
struct PackedScene {
    DeviceMemoryTally tally;
    CudaStream stream;
    CircleBuffers circles;
    BinContext ctx;
    DeviceCircles c;
    explicit PackedScene(const Scene& scene, const TileGrid* box_grid = nullptr) : ctx{stream.get(), nullptr, &tally} {
        circles.upload(scene, &tally, stream.get(), false, box_grid);
        c = circles.view();
        launch_pack_geometry(c, stream.get());
    }
};

/// A pair total on the device, read after the stream's work.
unsigned long long total_on_host(const unsigned long long* total, cudaStream_t s) {
    // The stream is non-blocking: cudaMemcpy on the default stream does not
    // wait for it, so wait here (without this, a large scene's total was read
    // before bin.scan had written it).
    CR_CUDA(cudaStreamSynchronize(s));
    unsigned long long v = 0;
    CR_CUDA(cudaMemcpy(&v, total, sizeof v, cudaMemcpyDeviceToHost));
    return v;
}

/// bin.split (SplitStage, the renderer's own) of the per-bin lists `bins`
/// (bins of `g`, coarse x coarse tiles of `tiles`, `entries` entries) into
/// per-tile lists, copied back.
BinListing split_listing(BinnedLists bins, const TileGrid& tiles, const TileGrid& g, int coarse,
                         unsigned long long entries, const BinContext& ctx) {
    bins.lists.coarse = coarse;
    bins.lists.bins_x = g.tiles_x;
    SplitStage split;
    const TileLists per_tile = split.split(tiles, bins, entries, ctx);
    CR_CUDA(cudaStreamSynchronize(ctx.stream));
    return listing_of(tiles, split.tile_start(), split.tile_end(), per_tile.list, entries * uint64_t(coarse) * coarse);
}

}  // namespace

BinListing gpu_bin_lists(const Scene& scene, int width, int height, int tile, int coarse, BinPath path,
                         int chunks_per_sm, bool staged_place) {
    const TileGrid tiles = make_tile_grid(width, height, tile);
    const TileGrid g = make_tile_grid(width, height, tile * coarse);
    PackedScene packed(scene, path == BinPath::Compact ? &g : nullptr);  // not const: the stages count their buffers
    const cudaStream_t s = packed.stream.get();
    const BinContext& ctx = packed.ctx;
    const DeviceCircles& c = packed.c;
    if (path == BinPath::Compact) {  // the renderer's own stage objects and calls
        CompactStage stage;
        stage.reserve(g.tile_count(), ctx);
        const TileLists lists = stage.compact(c, g, ctx);
        CR_CUDA(cudaStreamSynchronize(s));
        return listing_of(g, stage.bin_start(), stage.bin_end(), lists.list,
                          uint64_t(g.tile_count()) * uint64_t(c.count));
    }
    if (path == BinPath::Counted || path == BinPath::CountedSplit) {
        const bool split = path == BinPath::CountedSplit;
        if (split ? coarse != 2 && coarse != 4 : coarse != 1)
            throw std::invalid_argument("gpu_bin_lists: the counting sort lists single tiles (Counted, coarse 1) or "
                                        "bins of 2x2 or 4x4 tiles to split (CountedSplit)");
        CountingStages stages;
        stages.reserve(c.count, g.tile_count(), chunks_per_sm, coarse, staged_place, ctx);
        stages.count(c, g, true, ctx);
        const unsigned long long entries = total_on_host(stages.total(), s);
        const BinnedLists placed = stages.place(c, g, entries, ctx);
        if (split) return split_listing(placed, tiles, g, coarse, entries, ctx);
        CR_CUDA(cudaStreamSynchronize(s));
        return listing_of(g, stages.bin_start(), stages.bin_end(), placed.lists.list, entries);
    }
    SortedStages stages;
    stages.reserve(c.count, g.tile_count(), ctx);
    stages.scan(c, g, ctx);
    const unsigned long long pairs = total_on_host(stages.total(), s);
    const int split = path == BinPath::SortedSplit ? coarse : 0;
    const BinnedLists sorted = stages.fill_sort_ranges(c, g, PairBatch{0, c.count, 0, pairs, false, 0}, false, split, ctx);
    if (path == BinPath::SortedSplit) return split_listing(sorted, tiles, g, coarse, pairs, ctx);
    CR_CUDA(cudaStreamSynchronize(s));
    return listing_of(g, stages.bin_start(), stages.bin_end(), sorted.lists.list, pairs);
}

PlacedTwice gpu_place_twice(const Scene& scene, int width, int height, int coarse, int chunks_per_sm, bool staged,
                            double cut_fraction) {
    if (coarse != 1 && coarse != 2 && coarse != 4) throw std::invalid_argument("gpu_place_twice: bins of 1, 2 or 4 tiles");
    if (!(cut_fraction >= 0.0 && cut_fraction <= 1.0)) throw std::invalid_argument("gpu_place_twice: a fraction in [0, 1]");
    PackedScene packed(scene);  // not const: the stages count their buffers in its tally
    const cudaStream_t s = packed.stream.get();
    const BinContext& ctx = packed.ctx;
    const DeviceCircles& c = packed.c;
    const TileGrid g = make_tile_grid(width, height, 16 * coarse);
    CountingStages stages;
    stages.reserve(c.count, g.tile_count(), chunks_per_sm, coarse, staged, ctx);
    stages.count(c, g, true, ctx);
    PlacedTwice out;
    out.total = total_on_host(stages.total(), s);
    out.cut = static_cast<unsigned long long>(cut_fraction * double(out.total));
    const size_t words = size_t(out.total) * (coarse > 1 ? 2 : 1);
    const auto place_and_copy = [&](unsigned long long capacity, std::vector<unsigned int>& into) {
        const BinnedLists placed = stages.place(c, g, capacity, ctx);
        const void* list = coarse > 1 ? static_cast<const void*>(placed.pairs) : static_cast<const void*>(placed.lists.list);
        CR_CUDA(cudaStreamSynchronize(s));
        into.assign(words, 0u);
        if (words) CR_CUDA(cudaMemcpy(into.data(), list, words * sizeof(unsigned int), cudaMemcpyDeviceToHost));
        return list;
    };
    void* list = const_cast<void*>(place_and_copy(out.total, out.full));  // reserves room for every entry
    if (words) CR_CUDA(cudaMemsetAsync(list, 0xFF, words * sizeof(unsigned int), s));  // on the stream bin.place runs on
    place_and_copy(out.cut, out.cut_list);  // the same buffer: cut <= total
    return out;
}

int gpu_count_tile_limit(bool staged) { return staged ? staged_place_tile_limit() : count_tile_limit(); }

std::vector<int> gpu_tile_order(const std::vector<unsigned int>& loads, int tiles_x, int tiles_y) {
    if (tiles_x <= 0 || tiles_y <= 0 || loads.size() != size_t(tiles_x) * size_t(tiles_y))
        throw std::invalid_argument("gpu_tile_order: one load per tile of a non-empty grid");
    const TileGrid g = make_tile_grid(tiles_x * 16, tiles_y * 16, 16);
    std::vector<unsigned int> start(loads.size()), end(loads.size());
    unsigned int at = 0;
    for (size_t t = 0; t < loads.size(); ++t) {
        start[t] = at;
        end[t] = at += loads[t];
    }
    DeviceMemoryTally tally;
    CudaStream stream;
    DeviceBuffer<unsigned int> d_start, d_end;
    d_start.reserve("test.start", start.size(), &tally);
    d_end.reserve("test.end", end.size(), &tally);
    // on the sorting stream: a plain cudaMemcpy from pageable memory may still be copying when it returns,
    // and the non-blocking stream would not wait for it
    CR_CUDA(cudaMemcpyAsync(d_start.get(), start.data(), start.size() * 4, cudaMemcpyHostToDevice, stream.get()));
    CR_CUDA(cudaMemcpyAsync(d_end.get(), end.data(), end.size() * 4, cudaMemcpyHostToDevice, stream.get()));
    TileOrderBuffers order;
    order.reserve(g.tile_count(), &tally, stream.get());
    // bin.order reads only the starts and ends; a list must exist (a null one means "every circle", count long)
    DeviceBuffer<int> d_list;
    d_list.reserve("test.list", 1, &tally);
    TileLists lists{d_list.get(), d_start.get(), d_end.get(), 0};
    lists.bins_x = g.tiles_x;
    const int* ids = order.heavy_first(lists, g, stream.get());
    CR_CUDA(cudaStreamSynchronize(stream.get()));
    std::vector<int> out(loads.size());
    CR_CUDA(cudaMemcpy(out.data(), ids, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return out;
}

namespace {

/// `launch`(work, tiles, order, stream) on a copy of `work`; the order back.
template <class Launch>
std::vector<int> order_of_work(const std::vector<unsigned int>& work, Launch launch) {
    const int tiles = static_cast<int>(work.size());
    DeviceMemoryTally tally;
    CudaStream stream;
    RecordedOrderBuffers b;
    b.reserve(tiles, &tally, stream.get());
    CR_CUDA(cudaMemcpyAsync(b.work.get(), work.data(), work.size() * sizeof(unsigned int), cudaMemcpyHostToDevice,
                            stream.get()));
    launch(b.work.get(), tiles, b.order.get(), stream.get());
    CR_CUDA(cudaStreamSynchronize(stream.get()));
    std::vector<int> out(work.size());
    CR_CUDA(cudaMemcpy(out.data(), b.order.get(), out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return out;
}

}  // namespace

std::vector<int> gpu_recorded_order(const std::vector<unsigned int>& work) {
    if (work.empty()) throw std::invalid_argument("gpu_recorded_order: no tiles");
    return order_of_work(work, launch_recorded_order);
}

std::vector<int> gpu_work_order(const std::vector<unsigned int>& work) {
    if (work.empty()) throw std::invalid_argument("gpu_work_order: no tiles");
    return order_of_work(work, launch_work_order);
}

void gpu_advance(Scene& scene, int steps) {
    DeviceMemoryTally tally;
    CudaStream stream;
    cudaStream_t s = stream.get();
    CircleBuffers circles;
    circles.upload(scene, &tally, s);
    const CircleArrays c = circles.view().soa;
    for (int k = 0; k < steps; ++k)
        launch_advance(c, static_cast<int>(circles.motion), s);
    CR_CUDA(cudaStreamSynchronize(s));
    const std::pair<const DeviceBuffer<float>*, std::vector<float>*> back[] = {
        {&circles.x, &scene.x},   {&circles.y, &scene.y},   {&circles.z, &scene.z},          {&circles.vx, &scene.vx},
        {&circles.vy, &scene.vy}, {&circles.vz, &scene.vz}, {&circles.radius, &scene.radius}};
    for (const auto& [dev, host] : back) *host = to_host(*dev, scene.count());
}

std::vector<int> gpu_block_exclusive_scan(const std::vector<int>& values, int threads, std::vector<int>& block_totals,
                                          bool flags) {
    if (threads != 32 && threads != 64 && threads != 256 && threads != 1024)
        throw std::invalid_argument("gpu_block_exclusive_scan: threads must be 32, 64, 256 or 1024");
    if (values.empty() || values.size() % threads) throw std::invalid_argument("gpu_block_exclusive_scan: bad size");
    for (int v : values)
        if (flags && v != 0 && v != 1) throw std::invalid_argument("gpu_block_exclusive_scan: flags must be 0 or 1");
    const int blocks = static_cast<int>(values.size() / threads);
    DeviceMemoryTally tally;
    DeviceBuffer<int> in, out, totals;
    in.reserve("test.in", values.size(), &tally);
    out.reserve("test.out", values.size(), &tally);
    totals.reserve("test.totals", blocks, &tally);
    CR_CUDA(cudaMemcpy(in.get(), values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice));
    auto* kernel = flags ? (threads == 32 ? block_scan_flags_test_kernel<32> : threads == 64 ? block_scan_flags_test_kernel<64>
                            : threads == 256 ? block_scan_flags_test_kernel<256> : block_scan_flags_test_kernel<1024>)
                         : (threads == 32 ? block_scan_test_kernel<32> : threads == 64 ? block_scan_test_kernel<64>
                            : threads == 256 ? block_scan_test_kernel<256> : block_scan_test_kernel<1024>);
    kernel<<<blocks, threads>>>(in.get(), out.get(), totals.get());
    check_launch("block_scan_test_kernel");
    CR_CUDA(cudaDeviceSynchronize());
    block_totals = to_host(totals, blocks);
    return to_host(out, values.size());
}

}  // namespace cr
