#include <stdexcept>

#include "kernels/block_scan.cuh"
#include "kernels/cuda_check.h"
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

/// The runs tile_start/tile_end of `grid` and the first `entries` of `list`, on the host.
BinListing listing_of(const TileGrid& grid, const DeviceBuffer<unsigned int>& start,
                      const DeviceBuffer<unsigned int>& end, const int* list, uint64_t entries) {
    BinListing out{grid.tiles_x, grid.tiles_y, grid.tile, to_host(start, grid.tile_count()),
                   to_host(end, grid.tile_count()), std::vector<int>(entries)};
    if (entries) CR_CUDA(cudaMemcpy(out.list.data(), list, entries * sizeof(int), cudaMemcpyDeviceToHost));
    return out;
}

/// bin.split of the per-bin lists `per_bin_list` (bins of `g`, coarse x
/// coarse tiles of `tiles`, `entries` entries) into per-tile lists, copied back.
BinListing split_listing(BinBuffers& bins, const TileGrid& tiles, const TileGrid& g, const int* per_bin_list,
                         int coarse, unsigned long long entries, int64_t count, DeviceMemoryTally* tally,
                         cudaStream_t s) {
    TileLists per_bin{per_bin_list, bins.tile_start.get(), bins.tile_end.get(), count};
    per_bin.coarse = coarse;
    per_bin.bins_x = g.tiles_x;
    const TileLists per_tile = bins.split(tiles, per_bin, entries, tally, s, nullptr);
    CR_CUDA(cudaStreamSynchronize(s));
    return listing_of(tiles, bins.split_start, bins.split_end, per_tile.list, entries * uint64_t(coarse) * coarse);
}

}  // namespace

BinListing gpu_bin_lists(const Scene& scene, int width, int height, int tile, int coarse, BinPath path,
                         int chunks_per_sm) {
    DeviceMemoryTally tally;
    CudaStream stream;
    cudaStream_t s = stream.get();
    CircleBuffers circles;
    circles.upload(scene, &tally, s);
    const TileGrid tiles = make_tile_grid(width, height, tile);
    const TileGrid g = make_tile_grid(width, height, tile * coarse);
    BinBuffers bins;
    bins.reserve_scene(circles.count, g.tile_count(), &tally, s);
    const DeviceCircles c = circles.view();
    launch_pack_geometry(c, s);
    if (path == BinPath::Compact) {  // the renderer's own stage calls, as in render()
        const int* lists = bins.compact(c, g, &tally, s, nullptr);
        CR_CUDA(cudaStreamSynchronize(s));
        return listing_of(g, bins.tile_start, bins.tile_end, lists, uint64_t(g.tile_count()) * uint64_t(c.count));
    }
    if (path == BinPath::Counted || path == BinPath::CountedSplit) {
        const bool split = path == BinPath::CountedSplit;
        if (split ? coarse != 2 && coarse != 4 : coarse != 1)
            throw std::invalid_argument("gpu_bin_lists: the counting sort lists single tiles (Counted, coarse 1) or "
                                        "bins of 2x2 or 4x4 tiles to split (CountedSplit)");
        bins.reserve_counting(c.count, g.tile_count(), chunks_per_sm, coarse, &tally, s);
        bins.count_tiles(c, g, true, s, nullptr);
        CR_CUDA(cudaStreamSynchronize(s));
        const unsigned long long entries = to_host(bins.total, 1)[0];
        const int* list = bins.place(c, g, entries, &tally, s, nullptr);
        if (split) return split_listing(bins, tiles, g, list, coarse, entries, c.count, &tally, s);
        CR_CUDA(cudaStreamSynchronize(s));
        return listing_of(g, bins.tile_start, bins.tile_end, list, entries);
    }
    bins.count_and_scan(c, g, s, nullptr);
    // The stream is non-blocking: cudaMemcpy on the default stream does not
    // wait for it, so wait here (without this, a large scene's total was read
    // before bin.scan had written it).
    CR_CUDA(cudaStreamSynchronize(s));
    const unsigned long long pairs = to_host(bins.total, 1)[0];
    const int split = path == BinPath::SortedSplit ? coarse : 0;
    const int* sorted = bins.fill_sort_ranges(c, g, PairBatch{0, c.count, 0, pairs, false, 0}, false, split, &tally, s,
                                              nullptr);
    if (path == BinPath::SortedSplit) return split_listing(bins, tiles, g, sorted, coarse, pairs, c.count, &tally, s);
    CR_CUDA(cudaStreamSynchronize(s));
    return listing_of(g, bins.tile_start, bins.tile_end, sorted, pairs);
}

int gpu_count_tile_limit() { return count_tile_limit(); }

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
    TileLists lists{nullptr, d_start.get(), d_end.get(), 0};
    lists.bins_x = g.tiles_x;
    const int* ids = order.heavy_first(lists, g, stream.get());
    CR_CUDA(cudaStreamSynchronize(stream.get()));
    std::vector<int> out(loads.size());
    CR_CUDA(cudaMemcpy(out.data(), ids, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    return out;
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
