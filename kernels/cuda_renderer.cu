// The CUDA renderer's host side: buffers, the frame's stages on one stream,
// and cudaEvent timings. Kernels live one stage a file (clear.cu, advance.cu,
// bin.cu, shade_*.cu); this file only orders them.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "kernels/cuda_check.h"
#include "kernels/cuda_renderer.h"
#include "kernels/device_buffer.h"
#include "kernels/stages.h"

namespace cr {

DeviceOutOfMemory::DeviceOutOfMemory(const std::string& b, size_t n)
    : std::runtime_error("out of GPU memory allocating '" + b + "' (" + std::to_string(n) +
                         " bytes, " + std::to_string(n >> 20) +
                         " MiB); try a smaller --size or scene"),
      buffer(b),
      bytes(n) {}

void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
    throw CudaError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

void check_launch(const char* kernel_name) {
    const cudaError_t e = cudaGetLastError();
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction)
        throw CudaError(std::string("kernel ") + kernel_name +
                        " has no code for this GPU's architecture; rebuild with "
                        "-DCMAKE_CUDA_ARCHITECTURES=<your GPU's compute capability, e.g. 86>");
    if (e != cudaSuccess)
        throw CudaError(std::string("launch of ") + kernel_name + " failed: " + cudaGetErrorName(e) +
                        ": " + cudaGetErrorString(e));
}

/// Records a chain of events on the stream: each mark() ends the previous
/// stage and starts a named one; close() ends the last. Elapsed times between
/// consecutive events are the stage times (read after the stream finishes).
class StageTimeline {
public:
    void reset() {
        names_.clear();
        used_ = 0;
    }
    void mark(const char* name, const char* course, cudaStream_t s) {
        record(s);
        names_.push_back({name, course, 0.0});
    }
    void close(cudaStream_t s) {
        if (!names_.empty() && used_ == names_.size()) record(s);
    }
    std::vector<StageTime> read() {
        std::vector<StageTime> out;
        if (names_.empty() || used_ < names_.size() + 1) return out;
        CR_CUDA(cudaEventSynchronize(events_[used_ - 1].get()));
        for (size_t i = 0; i < names_.size(); ++i) {
            float ms = 0;
            CR_CUDA(cudaEventElapsedTime(&ms, events_[i].get(), events_[i + 1].get()));
            bool merged = false;  // batches repeat stage names: add them up
            for (auto& o : out)
                if (o.name == names_[i].name) {
                    o.ms += ms;
                    merged = true;
                }
            if (!merged) out.push_back({names_[i].name, names_[i].course, ms});
        }
        return out;
    }

private:
    void record(cudaStream_t s) {
        if (used_ == events_.size()) events_.emplace_back();
        CR_CUDA(cudaEventRecord(events_[used_].get(), s));
        ++used_;
    }
    std::vector<CudaEvent> events_;
    std::vector<StageTime> names_;
    size_t used_ = 0;
};

class CudaRendererImpl {
public:
    CudaRendererImpl(KernelKind k, CudaOptions o) : kind(k), opt(o) { tally.limit = o.memory_limit; }

    KernelKind kind;
    CudaOptions opt;
    DeviceMemoryTally tally;
    CudaStream stream;
    StageTimeline timeline;
    PinnedHost<unsigned long long> h_total{1};

    ShadeMode shade = ShadeMode::Flat;
    Motion motion = Motion::None;
    int64_t count = 0;
    int width = 0, height = 0;
    int frame = 0;
    int persistent_blocks = 0;
    TileGrid grid{};

    DeviceBuffer<float> x, y, z, vx, vy, vz, radius, cr, cg, cb, aux_x, aux_y;
    DeviceBuffer<float4> geom, color, image;
    DeviceBuffer<unsigned long long> counts, offsets, total;
    DeviceBuffer<unsigned int> keys, keys_alt, tile_start, tile_end, counter, tile_load, tile_load_alt;
    DeviceBuffer<int> values, values_alt, tile_ids, tile_ids_alt;
    DeviceBuffer<unsigned char> temp, order_temp;

    Image host_image;
    long long last_pairs = 0;
    bool last_binned = false;

    DeviceCircles circles() {
        DeviceCircles c;
        c.soa = CircleArrays{x.get(), y.get(), z.get(), vx.get(), vy.get(), vz.get(), radius.get(),
                             cr.get(), cg.get(), cb.get(), aux_x.get(), aux_y.get(), count};
        c.geom = geom.get();
        c.color = color.get();
        c.count = count;
        c.shade = shade;
        return c;
    }

    void upload(DeviceBuffer<float>& buf, const char* name, const std::vector<float>& v) {
        buf.reserve(name, std::max<size_t>(v.size(), 1), &tally);
        if (!v.empty())
            CR_CUDA(cudaMemcpyAsync(buf.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice, stream.get()));
    }

    void setup(const Scene& s, int w, int h) {
        if (w < 1 || h < 1 || w > 16384 || h > 16384)
            throw std::invalid_argument("image size must be within 1..16384 in each dimension");
        if (s.count() > static_cast<size_t>(INT32_MAX))
            throw std::invalid_argument("scenes are limited to 2^31-1 circles");
        CR_CUDA(cudaStreamSynchronize(stream.get()));
        shade = s.shade;
        motion = s.motion;
        count = static_cast<int64_t>(s.count());
        width = w;
        height = h;
        frame = 0;
        grid = make_tile_grid(w, h, opt.tile_size == 8 ? 8 : 16);
        upload(x, "circles.x", s.x);
        upload(y, "circles.y", s.y);
        upload(z, "circles.z", s.z);
        upload(vx, "circles.vx", s.vx);
        upload(vy, "circles.vy", s.vy);
        upload(vz, "circles.vz", s.vz);
        upload(radius, "circles.radius", s.radius);
        upload(cr, "circles.r", s.r);
        upload(cg, "circles.g", s.g);
        upload(cb, "circles.b", s.b);
        upload(aux_x, "circles.aux_x", s.aux_x);
        upload(aux_y, "circles.aux_y", s.aux_y);
        geom.reserve("circles.geom", std::max<int64_t>(count, 1), &tally);
        color.reserve("circles.color", std::max<int64_t>(count, 1), &tally);
        std::vector<float4> col(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) col[i] = make_float4(s.r[i], s.g[i], s.b[i], 0.f);
        if (count)
            CR_CUDA(cudaMemcpyAsync(color.get(), col.data(), col.size() * sizeof(float4), cudaMemcpyHostToDevice, stream.get()));
        image.reserve("image", size_t(w) * h, &tally);
        tile_start.reserve("bin.tile_start", grid.tile_count(), &tally);
        tile_end.reserve("bin.tile_end", grid.tile_count(), &tally);
        counter.reserve("tile_counter", 1, &tally);
        total.reserve("bin.total", 1, &tally);
        if (kind == KernelKind::Persistent) persistent_blocks = persistent_block_count(grid.tile, opt.rows_per_thread, shade);
        CR_CUDA(cudaStreamSynchronize(stream.get()));  // `col` must outlive the copy
        host_image = Image();
        timeline.reset();
    }

    void clear() {
        timeline.reset();
        timeline.mark("clear", "Clear", stream.get());
        launch_clear(image.get(), width, height, shade, stream.get());
    }

    void advance() {
        timeline.mark("advance", "Advance", stream.get());
        launch_advance(circles().soa, static_cast<int>(motion), static_cast<uint32_t>(frame), stream.get());
        ++frame;
    }

    void render() {
        const DeviceCircles c = circles();
        cudaStream_t s = stream.get();
        if (kind == KernelKind::Naive || kind == KernelKind::Unordered) {
            timeline.mark("bin.pack", "Render", s);
            launch_pack_geometry(c, s);
            timeline.mark("shade", "Render", s);
            if (kind == KernelKind::Naive) launch_shade_naive(c, image.get(), width, height, s);
            else launch_shade_unordered(c, image.get(), width, height, s);
            timeline.close(s);
            last_binned = false;
            return;
        }
        const long long tests = static_cast<long long>(count) * grid.tile_count();
        if (tests <= opt.direct_limit) {  // few circles: every block scans them all
            timeline.mark("bin.pack", "Render", s);
            launch_pack_geometry(c, s);
            shade_lists(c, TileLists{nullptr, nullptr, nullptr, count});
            timeline.close(s);
            last_binned = false;
            last_pairs = tests;
            return;
        }
        render_binned(c);
        timeline.close(s);
    }

    void shade_lists(const DeviceCircles& c, TileLists lists, const int* order = nullptr) {
        cudaStream_t s = stream.get();
        timeline.mark("shade", "Render", s);
        const bool persistent = kind == KernelKind::Persistent;
        if (persistent) CR_CUDA(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned int), s));
        launch_shade_tiled(c, lists, grid, opt.rows_per_thread, image.get(), persistent, counter.get(), order,
                           persistent_blocks, s);
    }

    /// Persistent kernel: tile ids sorted by load, heaviest first.
    const int* heavy_first_order() {
        cudaStream_t s = stream.get();
        const int tiles = grid.tile_count();
        timeline.mark("bin.order", "Render", s);
        tile_load.reserve("bin.tile_loads", tiles, &tally);
        tile_load_alt.reserve("bin.tile_loads_alt", tiles, &tally);
        tile_ids.reserve("bin.tile_order", tiles, &tally);
        tile_ids_alt.reserve("bin.tile_order_alt", tiles, &tally);
        launch_tile_loads(tile_start.get(), tile_end.get(), tiles, tile_load.get(), tile_ids.get(), s);
        cub::DoubleBuffer<unsigned int> k(tile_load.get(), tile_load_alt.get());
        cub::DoubleBuffer<int> v(tile_ids.get(), tile_ids_alt.get());
        size_t bytes = 0;
        CR_CUDA(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, k, v, tiles, 0, 32, s));
        order_temp.reserve("bin.order_temp", bytes, &tally);
        CR_CUDA(cub::DeviceRadixSort::SortPairsDescending(order_temp.get(), bytes, k, v, tiles, 0, 32, s));
        return v.Current();
    }

    void render_binned(const DeviceCircles& c) {
        cudaStream_t s = stream.get();
        counts.reserve("bin.counts", count, &tally);
        offsets.reserve("bin.offsets", count, &tally);
        timeline.mark("bin.count", "Render", s);
        launch_bin_count(c, 0, count, grid, counts.get(), s);
        timeline.mark("bin.scan", "Render", s);
        size_t scan_bytes = 0;
        CR_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.get(), offsets.get(), count, s));
        temp.reserve("bin.cub_temp", scan_bytes, &tally);
        CR_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), scan_bytes, counts.get(), offsets.get(), count, s));
        launch_total(counts.get(), offsets.get(), count, total.get(), s);
        CR_CUDA(cudaMemcpyAsync(h_total.get(), total.get(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
        CR_CUDA(cudaStreamSynchronize(s));  // the pair count sizes the next stages
        const unsigned long long pairs = *h_total.get();
        last_pairs = static_cast<long long>(pairs);
        last_binned = true;

        // Batches of circles, in input order, of at most max_pairs pairs each.
        std::vector<std::pair<int64_t, int64_t>> batches;
        std::vector<unsigned long long> h_off;
        const unsigned long long cap = static_cast<unsigned long long>(opt.max_pairs_per_batch);
        if (pairs <= cap) {
            batches.push_back({0, count});
        } else {
            h_off.resize(static_cast<size_t>(count) + 1);
            CR_CUDA(cudaMemcpy(h_off.data(), offsets.get(), count * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            h_off[count] = pairs;
            int64_t a = 0;
            while (a < count) {
                int64_t b = a + 1;  // at least one circle, even if it alone exceeds cap
                while (b < count && h_off[b + 1] - h_off[a] <= cap) ++b;
                batches.push_back({a, b});
                a = b;
            }
        }
        int bits = 1;
        while ((1ll << bits) < grid.tile_count()) ++bits;
        for (const auto& [a, b] : batches) {
            unsigned long long base = 0, n = pairs;
            if (!h_off.empty()) {
                base = h_off[a];
                n = h_off[b] - h_off[a];
            }
            const int np = static_cast<int>(n);
            keys.reserve("bin.pair_keys", n, &tally, 1.25);
            keys_alt.reserve("bin.pair_keys_alt", n, &tally, 1.25);
            values.reserve("bin.pair_circles", n, &tally, 1.25);
            values_alt.reserve("bin.pair_circles_alt", n, &tally, 1.25);
            timeline.mark("bin.fill", "Render", s);
            launch_bin_fill(c, a, b, grid, offsets.get(), base, keys.get(), values.get(), s);
            timeline.mark("bin.sort", "Render", s);
            cub::DoubleBuffer<unsigned int> k(keys.get(), keys_alt.get());
            cub::DoubleBuffer<int> v(values.get(), values_alt.get());
            size_t sort_bytes = 0;
            CR_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, np, 0, bits, s));
            temp.reserve("bin.cub_temp", sort_bytes, &tally, 1.25);
            CR_CUDA(cub::DeviceRadixSort::SortPairs(temp.get(), sort_bytes, k, v, np, 0, bits, s));
            timeline.mark("bin.ranges", "Render", s);
            launch_bin_ranges(k.Current(), np, grid.tile_count(), tile_start.get(), tile_end.get(), s);
            const int* order = kind == KernelKind::Persistent ? heavy_first_order() : nullptr;
            shade_lists(c, TileLists{v.Current(), tile_start.get(), tile_end.get(), count}, order);
        }
    }

    const Image& download() {
        cudaStream_t s = stream.get();
        if (host_image.width != width || host_image.height != height) host_image = Image(width, height);
        timeline.mark("download", "", s);
        CR_CUDA(cudaMemcpyAsync(host_image.data.data(), image.get(), size_t(width) * height * sizeof(float4),
                                cudaMemcpyDeviceToHost, s));
        timeline.close(s);
        CR_CUDA(cudaStreamSynchronize(s));
        return host_image;
    }

    std::vector<int> tile_loads(int& tx, int& ty, int& ts) {
        tx = grid.tiles_x;
        ty = grid.tiles_y;
        ts = grid.tile;
        std::vector<int> loads(grid.tile_count(), 0);
        CR_CUDA(cudaStreamSynchronize(stream.get()));
        if (last_binned) {
            std::vector<unsigned int> st(loads.size()), en(loads.size());
            CR_CUDA(cudaMemcpy(st.data(), tile_start.get(), st.size() * 4, cudaMemcpyDeviceToHost));
            CR_CUDA(cudaMemcpy(en.data(), tile_end.get(), en.size() * 4, cudaMemcpyDeviceToHost));
            for (size_t t = 0; t < loads.size(); ++t) loads[t] = static_cast<int>(en[t] - st[t]);
            return loads;
        }
        // Direct mode: count on the host from the packed geometry.
        std::vector<float4> g(static_cast<size_t>(count));
        if (count) CR_CUDA(cudaMemcpy(g.data(), geom.get(), g.size() * sizeof(float4), cudaMemcpyDeviceToHost));
        const float iw = 1.f / width, ih = 1.f / height;
        for (const auto& q : g) {
            const PixelBox b = circle_pixel_box(q.x, q.y, q.z, width, height);
            const TileRange r = tiles_of_box(b, grid.tile);
            for (int yy = r.ty0; yy < r.ty1; ++yy)
                for (int xx = r.tx0; xx < r.tx1; ++xx)
                    if (circle_touches_tile(q.x, q.y, q.z, b, grid, xx, yy, iw, ih)) ++loads[yy * grid.tiles_x + xx];
        }
        return loads;
    }
};

CudaOptions cuda_options_from_env(CudaOptions o) {
    const char* env = std::getenv("CR_CUDA_OPTIONS");
    if (!env) return o;
    std::string text = env;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        pos = comma + 1;
        const size_t eq = item.find('=');
        if (item.empty()) continue;
        if (eq == std::string::npos) throw std::invalid_argument("CR_CUDA_OPTIONS: '" + item + "' is not key=value");
        const std::string key = item.substr(0, eq);
        long long v = 0;
        try {
            v = std::stoll(item.substr(eq + 1));
        } catch (const std::exception&) {
            throw std::invalid_argument("CR_CUDA_OPTIONS: bad number in '" + item + "'");
        }
        if (key == "tile" && (v == 8 || v == 16)) o.tile_size = static_cast<int>(v);
        else if (key == "rows" && (v == 4 || v == 8)) o.rows_per_thread = static_cast<int>(v);
        else if (key == "direct" && v >= 0) o.direct_limit = v;
        else if (key == "batch" && v >= 1 && v <= (1ll << 30)) o.max_pairs_per_batch = v;
        else if (key == "memlimit_mib" && v >= 1) o.memory_limit = static_cast<size_t>(v) << 20;
        else throw std::invalid_argument("CR_CUDA_OPTIONS: unsupported '" + item +
                                         "' (tile=8|16, rows=4|8, direct>=0, batch=1..2^30, memlimit_mib>=1)");
    }
    return o;
}

CudaRenderer::CudaRenderer(KernelKind kind, CudaOptions options) : kind_(kind) {
    std::string why;
    if (!cuda_device_available(&why)) throw NoCudaDeviceError("no CUDA device: " + why);
    impl_ = std::make_unique<CudaRendererImpl>(kind, options);
}

CudaRenderer::~CudaRenderer() = default;

std::string CudaRenderer::name() const {
    switch (kind_) {
        case KernelKind::Naive: return "naive";
        case KernelKind::Tiled: return "tiled";
        case KernelKind::Persistent: return "persistent";
        default: return "unordered";
    }
}

void CudaRenderer::setup(const Scene& scene, int width, int height) { impl_->setup(scene, width, height); }
void CudaRenderer::clear() { impl_->clear(); }
void CudaRenderer::advance() { impl_->advance(); }
void CudaRenderer::render() { impl_->render(); }
const Image& CudaRenderer::image() { return impl_->download(); }
std::vector<StageTime> CudaRenderer::timings() { return impl_->timeline.read(); }
int CudaRenderer::frame() const { return impl_->frame; }
const float* CudaRenderer::device_image() const { return reinterpret_cast<const float*>(impl_->image.get()); }
cudaStream_t CudaRenderer::stream() const { return impl_->stream.get(); }
size_t CudaRenderer::peak_device_bytes() const { return impl_->tally.peak; }

WorkCounts CudaRenderer::work() {
    WorkCounts w;
    if (kind_ == KernelKind::Naive || kind_ == KernelKind::Unordered) {
        w.coverage_tests = impl_->count * static_cast<long long>(impl_->width) * impl_->height;
        return w;
    }
    const long long tp = static_cast<long long>(impl_->grid.tile) * impl_->grid.tile;
    w.circle_tile_pairs = impl_->last_pairs;
    w.coverage_tests = impl_->last_pairs * tp;
    return w;
}

std::vector<int> CudaRenderer::tile_loads(int& tx, int& ty, int& ts) {
    if (kind_ == KernelKind::Naive || kind_ == KernelKind::Unordered) {
        tx = ty = ts = 0;
        return {};
    }
    return impl_->tile_loads(tx, ty, ts);
}

}  // namespace cr
