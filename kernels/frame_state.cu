#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/frame_state.h"

namespace cr {

namespace {

void upload_floats(DeviceBuffer<float>& buf, const char* name, const std::vector<float>& v,
                   DeviceMemoryTally* tally, cudaStream_t stream) {
    buf.reserve(name, std::max<size_t>(v.size(), 1), tally);
    if (!v.empty())
        CR_CUDA(cudaMemcpyAsync(buf.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
}

}  // namespace

void CircleBuffers::upload(const Scene& s, DeviceMemoryTally* tally, cudaStream_t stream, bool with_records,
                           const TileGrid* boxes_for) {
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
    if (with_records) records.reserve("circles.records", 2 * std::max<int64_t>(count, 1), tally);
    else records.release();
    if (boxes_for) bin_boxes.reserve("circles.bin_boxes", std::max<int64_t>(count, 1), tally);
    else bin_boxes.release();
    box_grid = boxes_for ? *boxes_for : TileGrid{};
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
    c.rec = records.size() > 0 ? records.get() : nullptr;
    c.bin_box = bin_boxes.size() > 0 ? bin_boxes.get() : nullptr;
    c.box_grid = box_grid;
    c.count = count;
    c.shade = shade;
    return c;
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

void RecordedOrderBuffers::reserve(int tiles, DeviceMemoryTally* tally, cudaStream_t stream) {
    work.reserve("shade.tile_work", std::max(tiles, 1), tally);
    order.reserve("bin.recorded_order", std::max(tiles, 1), tally);
    CR_CUDA(cudaMemsetAsync(work.get(), 0, work.size() * sizeof(unsigned int), stream));
    recorded = false;
    forked = false;
    ahead = false;
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
