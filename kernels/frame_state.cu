#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/frame_state.h"

namespace cr {

namespace {

/// The sort's key width: enough bits for every tile id.
int pair_key_bits(int tiles) {
    int bits = 1;
    while ((1ll << bits) < tiles) ++bits;
    return bits;
}

/// Each circle's bin count, computed as the scan reads it (fused bin.count).
auto bin_counts(const float4* geom, const TileGrid& g) {
    return thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), BinsOfCircle{geom, g});
}

/// Marks stage `name` (part of the course's Render) when timing.
void mark(StageTimeline* timeline, const char* name, cudaStream_t stream) {
    if (timeline) timeline->mark(name, "Render", stream);
}

void upload_floats(DeviceBuffer<float>& buf, const char* name, const std::vector<float>& v,
                   DeviceMemoryTally* tally, cudaStream_t stream) {
    buf.reserve(name, std::max<size_t>(v.size(), 1), tally);
    if (!v.empty())
        CR_CUDA(cudaMemcpyAsync(buf.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
}

}  // namespace

void CircleBuffers::upload(const Scene& s, DeviceMemoryTally* tally, cudaStream_t stream) {
    count = static_cast<int64_t>(s.count());
    shade = s.shade;
    motion = s.motion;
    const std::pair<DeviceBuffer<float>*, const std::vector<float>*> arrays[] = {
        {&x, &s.x}, {&y, &s.y}, {&z, &s.z}, {&vx, &s.vx}, {&vy, &s.vy}, {&vz, &s.vz},
        {&radius, &s.radius}, {&r, &s.r}, {&g, &s.g}, {&b, &s.b}, {&aux_x, &s.aux_x}, {&aux_y, &s.aux_y}};
    const char* names[] = {"circles.x", "circles.y", "circles.z", "circles.vx", "circles.vy", "circles.vz",
                           "circles.radius", "circles.r", "circles.g", "circles.b", "circles.aux_x", "circles.aux_y"};
    for (size_t i = 0; i < std::size(arrays); ++i) upload_floats(*arrays[i].first, names[i], *arrays[i].second, tally, stream);
    geom.reserve("circles.geom", std::max<int64_t>(count, 1), tally);
    color.reserve("circles.color", std::max<int64_t>(count, 1), tally);
    std::vector<float4> col(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) col[i] = make_float4(s.r[i], s.g[i], s.b[i], 0.f);
    if (count)
        CR_CUDA(cudaMemcpyAsync(color.get(), col.data(), col.size() * sizeof(float4), cudaMemcpyHostToDevice, stream));
    CR_CUDA(cudaStreamSynchronize(stream));  // `col` and the scene must outlive the copies
}

DeviceCircles CircleBuffers::view() const {
    DeviceCircles c;
    c.soa = CircleArrays{x.get(), y.get(), z.get(), vx.get(), vy.get(), vz.get(), radius.get(),
                         r.get(), g.get(), b.get(), aux_x.get(), aux_y.get(), count};
    c.geom = geom.get();
    c.color = color.get();
    c.count = count;
    c.shade = shade;
    return c;
}

void BinBuffers::reserve_scene(int64_t circles, int tiles, DeviceMemoryTally* tally, cudaStream_t stream) {
    offsets.reserve("bin.offsets", std::max<int64_t>(circles, 1), tally);
    total.reserve("bin.total", 1, tally);
    tile_start.reserve("bin.tile_start", tiles, tally);
    tile_end.reserve("bin.tile_end", tiles, tally);
    size_t scan_bytes = 0;
    CR_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, bin_counts(nullptr, TileGrid{}), offsets.get(), circles,
                                          stream));
    temp.reserve("bin.cub_temp", scan_bytes, tally, 1.25);
}

void BinBuffers::reserve_pairs(uint64_t pairs, int key_bits, DeviceMemoryTally* tally, cudaStream_t stream) {
    keys.reserve("bin.pair_keys", pairs, tally, 1.25);
    keys_alt.reserve("bin.pair_keys_alt", pairs, tally, 1.25);
    values.reserve("bin.pair_circles", pairs, tally, 1.25);
    values_alt.reserve("bin.pair_circles_alt", pairs, tally, 1.25);
    // One scratch for both CUB calls of a frame: reserve_scene sized it for
    // the scan of the counts, and it only grows, so the sort decides here.
    size_t sort_bytes = 0;
    const int n = static_cast<int>(std::min<uint64_t>(pairs, INT32_MAX));
    cub::DoubleBuffer<unsigned int> k(keys.get(), keys_alt.get());
    cub::DoubleBuffer<int> v(values.get(), values_alt.get());
    CR_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, n, 0, key_bits, stream));
    temp.reserve("bin.cub_temp", sort_bytes, tally, 1.25);
}

void BinBuffers::count_and_scan(const DeviceCircles& c, const TileGrid& g, cudaStream_t stream,
                                StageTimeline* timeline) {
    mark(timeline, "bin.scan", stream);
    size_t bytes = temp.size();
    CR_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, bin_counts(c.geom, g), offsets.get(), c.count, stream));
    launch_total(c, g, offsets.get(), total.get(), stream);
}

const int* BinBuffers::fill_sort_ranges(const DeviceCircles& c, const TileGrid& g, const PairBatch& batch,
                                        bool fill_per_thread, int split_coarse, DeviceMemoryTally* tally,
                                        cudaStream_t stream, StageTimeline* timeline) {
    const int bits = pair_key_bits(g.tile_count());
    const int n = static_cast<int>(batch.pairs);
    reserve_pairs(batch.pairs, bits, tally, stream);
    mark(timeline, "bin.fill", stream);
    if (batch.speculative)
        launch_bin_prepare(total.get(), batch.pairs, batch.tail_hint, keys.get(), values.get(), stream);
    launch_bin_fill(c, batch.begin, batch.end, g, offsets.get(), batch.base, batch.pairs, split_coarse, keys.get(),
                    values.get(), fill_per_thread, stream);
    mark(timeline, "bin.sort", stream);
    cub::DoubleBuffer<unsigned int> k(keys.get(), keys_alt.get());
    cub::DoubleBuffer<int> v(values.get(), values_alt.get());
    size_t bytes = temp.size();
    if (n > 0) CR_CUDA(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, k, v, n, 0, bits, stream));
    mark(timeline, "bin.ranges", stream);
    launch_bin_ranges(k.Current(), batch.pairs, g.tile_count(), split_coarse != 0, tile_start.get(), tile_end.get(),
                      stream);
    sorted_keys = k.Current();
    splittable_coarse = split_coarse;
    return v.Current();
}

void BinBuffers::reserve_counting(int64_t circles, int tiles, int chunks_per_sm, int split_coarse,
                                  DeviceMemoryTally* tally, cudaStream_t) {
    chunks = count_chunks(circles, tiles, chunks_per_sm, split_coarse);
    const size_t cells = size_t(tiles) * size_t(chunks.chunks);
    chunk_counts.reserve("bin.chunk_counts", cells, tally);
    chunk_prefix.reserve("bin.chunk_prefix", cells, tally);
    tile_totals.reserve("bin.tile_totals", tiles, tally);
    chunk_entries.reserve("bin.chunk_entries", size_t(chunks.chunks), tally);
    circle_ranges.reserve("bin.circle_ranges", std::max<int64_t>(circles, 1), tally);
}

void BinBuffers::count_tiles(const DeviceCircles& c, const TileGrid& g, bool total_now, cudaStream_t stream,
                             StageTimeline* timeline) {
    const int tiles = g.tile_count();
    mark(timeline, "bin.count", stream);
    launch_bin_count(c, g, chunks, chunk_counts.get(), chunk_entries.get(), circle_ranges.get(), stream);
    mark(timeline, "bin.scan", stream);
    launch_chunk_prefix(chunk_counts.get(), tiles, chunks, chunk_prefix.get(), tile_totals.get(), stream);
    if (total_now) launch_count_total(chunks, chunk_entries.get(), total.get(), stream);
}

const int* BinBuffers::place(const DeviceCircles& c, const TileGrid& g, unsigned long long capacity,
                             DeviceMemoryTally* tally, cudaStream_t stream, StageTimeline* timeline) {
    const unsigned long long slots = std::max<unsigned long long>(capacity, 1);
    const bool split_next = chunks.split_shift > 0;
    if (split_next) placed_pairs.reserve("bin.placed_pairs", slots, tally, 1.25);
    else values.reserve("bin.pair_circles", slots, tally, 1.25);
    mark(timeline, "bin.place", stream);
    launch_bin_place(c.count, circle_ranges.get(), g, chunks, chunk_prefix.get(), tile_totals.get(), chunk_entries.get(),
                     capacity, split_next ? nullptr : values.get(), split_next ? placed_pairs.get() : nullptr,
                     tile_start.get(), tile_end.get(), total.get(), stream);
    sorted_keys = nullptr;  // bin.split reads placed_pairs instead
    splittable_coarse = 1 << chunks.split_shift;
    return split_next ? nullptr : values.get();
}

const int* BinBuffers::compact(const DeviceCircles& c, const TileGrid& g, DeviceMemoryTally* tally, cudaStream_t stream,
                              StageTimeline* timeline) {
    values.reserve("bin.compact_lists", std::max<uint64_t>(1, uint64_t(g.tile_count()) * uint64_t(c.count)), tally);
    mark(timeline, "bin.compact", stream);
    launch_bin_compact(c, g, values.get(), tile_start.get(), tile_end.get(), stream);
    return values.get();
}

TileLists BinBuffers::split(const TileGrid& tiles, const TileLists& bins, uint64_t entries, DeviceMemoryTally* tally,
                            cudaStream_t stream, StageTimeline* timeline) {
    if (splittable_coarse != bins.coarse || bins.coarse == 1)
        throw std::logic_error("bin.split: the last binning left no tile masks or fine ranges for bins of " +
                               std::to_string(bins.coarse) + "x" + std::to_string(bins.coarse) +
                               " tiles (fill_sort_ranges' split_coarse, reserve_counting's split_coarse)");
    const uint64_t slots = std::max<uint64_t>(1, entries * uint64_t(bins.coarse) * uint64_t(bins.coarse));
    if (slots > UINT32_MAX) throw std::invalid_argument("bin.split: more than 2^32 list entries");
    split_lists.reserve("bin.split_lists", slots, tally, 1.25);
    split_start.reserve("bin.split_start", tiles.tile_count(), tally);
    split_end.reserve("bin.split_end", tiles.tile_count(), tally);
    mark(timeline, "bin.split", stream);
    launch_bin_split(tiles, bins, sorted_keys, sorted_keys ? nullptr : placed_pairs.get(), split_lists.get(),
                     split_start.get(), split_end.get(), stream);
    TileLists out{split_lists.get(), split_start.get(), split_end.get(), bins.count};
    out.total = bins.total;
    out.capacity = bins.capacity;
    out.bins_x = tiles.tiles_x;
    return out;
}

void TileOrderBuffers::reserve(int tiles, DeviceMemoryTally* tally, cudaStream_t stream) {
    counter.reserve("tile_counter", 1, tally);
    ids.reserve("bin.tile_order", tiles, tally);
    if (tiles <= kOrderBlockTiles) return;  // one block sorts them in shared memory (launch_tile_order)
    loads.reserve("bin.tile_loads", tiles, tally);
    loads_alt.reserve("bin.tile_loads_alt", tiles, tally);
    ids_alt.reserve("bin.tile_order_alt", tiles, tally);
    size_t bytes = 0;
    cub::DoubleBuffer<unsigned int> k(loads.get(), loads_alt.get());
    cub::DoubleBuffer<int> v(ids.get(), ids_alt.get());
    CR_CUDA(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, k, v, tiles, 0, 32, stream));
    temp.reserve("bin.order_temp", bytes, tally);
}

const int* TileOrderBuffers::heavy_first(const TileLists& lists, const TileGrid& g, cudaStream_t stream) {
    const int tiles = g.tile_count();
    if (tiles > static_cast<int>(ids.size())) throw std::invalid_argument("bin.order: more tiles than reserved");
    if (tiles <= kOrderBlockTiles) {
        launch_tile_order(lists, g, ids.get(), stream);
        return ids.get();
    }
    if (tiles > static_cast<int>(loads.size()))
        throw std::invalid_argument("bin.order: the device sort's buffers were reserved for a grid of at most " +
                                    std::to_string(kOrderBlockTiles) + " tiles");
    launch_tile_loads(lists, g, loads.get(), ids.get(), stream);
    cub::DoubleBuffer<unsigned int> k(loads.get(), loads_alt.get());
    cub::DoubleBuffer<int> v(ids.get(), ids_alt.get());
    size_t bytes = temp.size();
    CR_CUDA(cub::DeviceRadixSort::SortPairsDescending(temp.get(), bytes, k, v, tiles, 0, 32, stream));
    return v.Current();
}

}  // namespace cr
