// The multi-core CPU renderer: the GPU's tiled algorithm on OpenMP threads.
//
// A frame renders circles in batches of batch_ (kBatch; input order). Each batch is
//  1. binned: the circles are cut into a few chunks per thread; every chunk
//     counts its circles per tile (kernels/tile_math.h: tiles_of_box, then
//     circle_touches_tile), an exclusive scan over (tile, chunk) gives each
//     chunk its segment of each tile's list, and the chunks fill their
//     segments. A tile's list is therefore its circles in input order.
//  2. shaded: threads take tiles dynamically. A tile's pixels are copied into
//     a tile-local SoA buffer (r, g, b, a planes), the tile's circles are
//     gathered into SoA arrays, and each circle is blended over the part of
//     its pixel box inside the tile, row by row. For flat shading the row
//     loop has no branch: the blend is computed for every pixel and kept only
//     where the coverage test holds (a select, so uncovered pixels stay
//     bit-identical), which the compiler vectorizes.
// Coverage, shading and blending are the functions of render/shading.h on the
// same operands in the same order as cpuref, so the image is bit-identical.
#include "render/cpu/cpu_parallel.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "render/core/tile_math.h"

namespace cr {

namespace {

/// mask ? a : b for an all-ones or all-zero mask, on the bits: branch-free,
/// so the compiler vectorizes the loop (a float `?:` over computed values is
/// kept as a branch under the default -ftrapping-math), and exact (b's bits
/// are kept as they are, whatever a is).
inline float select_bits(uint32_t mask, float a, float b) {
    uint32_t ua, ub;
    std::memcpy(&ua, &a, sizeof ua);
    std::memcpy(&ub, &b, sizeof ub);
    const uint32_t u = (ua & mask) | (ub & ~mask);
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/// Per-thread scratch of the shading stage: the tile's pixels (SoA planes)
/// and its circles (SoA arrays, box already clipped to the tile).
struct TileScratch {
    static constexpr int kT = CpuParallelRenderer::kTile;
    alignas(64) float pr[kT * kT], pg[kT * kT], pb[kT * kT], pa[kT * kT];
    alignas(64) float px[kT];
    std::vector<float> cx, cy, cr, cz, fr, fg, fb, fa;
    std::vector<int> bx0, bx1, by0, by1;
    void resize(size_t n) {
        if (cx.size() >= n) return;
        for (auto* v : {&cx, &cy, &cr, &cz, &fr, &fg, &fb, &fa}) v->resize(n);
        for (auto* v : {&bx0, &bx1, &by0, &by1}) v->resize(n);
    }
};

/// Pixels [x0, x0 + w) x [y0, y0 + h) of one tile (partial at the edges).
struct TileRect {
    int x0, y0, w, h;
};

TileRect tile_rect(const TileGrid& g, int t) {
    constexpr int T = CpuParallelRenderer::kTile;
    const int x0 = (t % g.tiles_x) * T, y0 = (t / g.tiles_x) * T;
    return TileRect{x0, y0, std::min(g.width, x0 + T) - x0, std::min(g.height, y0 + T) - y0};
}

/// Gathers the tile's m circles (SoA), their boxes clipped to the tile.
void gather_circles(TileScratch& ts, const Scene& s, const uint32_t* list, size_t m, const TileGrid& g,
                    const TileRect& rect) {
    ts.resize(m);
    for (size_t q = 0; q < m; ++q) {
        const uint32_t k = list[q];
        const PixelBox b = circle_pixel_box(s.x[k], s.y[k], s.radius[k], g.width, g.height);
        ts.cx[q] = s.x[k];
        ts.cy[q] = s.y[k];
        ts.cr[q] = s.radius[k];
        ts.cz[q] = s.z[k];
        const Fragment f = shade_flat(s.r[k], s.g[k], s.b[k]);
        ts.fr[q] = f.r;
        ts.fg[q] = f.g;
        ts.fb[q] = f.b;
        ts.fa[q] = f.alpha;
        ts.bx0[q] = std::max(b.min_x - rect.x0, 0);
        ts.bx1[q] = std::min(b.max_x - rect.x0, rect.w);
        ts.by0[q] = std::max(b.min_y - rect.y0, 0);
        ts.by1[q] = std::min(b.max_y - rect.y0, rect.h);
    }
}

/// Copies the tile's pixels from the AoS image into the SoA planes.
void load_tile(TileScratch& ts, const Image& img, const TileRect& rect) {
    constexpr int T = CpuParallelRenderer::kTile;
    for (int j = 0; j < rect.h; ++j) {
        const float* p = img.pixel(rect.x0, rect.y0 + j);
        for (int i = 0; i < rect.w; ++i) {
            ts.pr[j * T + i] = p[4 * i + 0];
            ts.pg[j * T + i] = p[4 * i + 1];
            ts.pb[j * T + i] = p[4 * i + 2];
            ts.pa[j * T + i] = p[4 * i + 3];
        }
    }
}

/// Copies the SoA planes back into the image.
void store_tile(const TileScratch& ts, Image& img, const TileRect& rect) {
    constexpr int T = CpuParallelRenderer::kTile;
    for (int j = 0; j < rect.h; ++j) {
        float* p = img.pixel(rect.x0, rect.y0 + j);
        for (int i = 0; i < rect.w; ++i) {
            p[4 * i + 0] = ts.pr[j * T + i];
            p[4 * i + 1] = ts.pg[j * T + i];
            p[4 * i + 2] = ts.pb[j * T + i];
            p[4 * i + 3] = ts.pa[j * T + i];
        }
    }
}

/// Flat circle q over its clipped box: branch-free rows (a select keeps the
/// uncovered pixels' bits), which the compiler vectorizes.
void blend_flat_circle(TileScratch& ts, size_t q, const TileRect& rect, float inv_h) {
    constexpr int T = CpuParallelRenderer::kTile;
    const float cx = ts.cx[q], cy = ts.cy[q], r = ts.cr[q];
    const float* __restrict pxs = ts.px;
    const Fragment f{ts.fr[q], ts.fg[q], ts.fb[q], ts.fa[q]};
    const int bx0 = ts.bx0[q], bx1 = ts.bx1[q], by0 = ts.by0[q], by1 = ts.by1[q];
    for (int j = by0; j < by1; ++j) {
        const float py = pixel_center(rect.y0 + j, inv_h);
        float* __restrict rr = ts.pr + j * T;
        float* __restrict rg = ts.pg + j * T;
        float* __restrict rb = ts.pb + j * T;
        float* __restrict ra = ts.pa + j * T;
        for (int i = bx0; i < bx1; ++i) {
            const bool cov = covers(center_distance2(cx, cy, pxs[i], py), r);
            const float or_ = rr[i], og = rg[i], ob = rb[i], oa = ra[i];
            float vr = or_, vg = og, vb = ob, va = oa;
            blend(vr, vg, vb, va, f);
            // Select, not alpha masking: uncovered pixels keep their bits.
            const uint32_t mask = 0u - static_cast<uint32_t>(cov);
            rr[i] = select_bits(mask, vr, or_);
            rg[i] = select_bits(mask, vg, og);
            rb[i] = select_bits(mask, vb, ob);
            ra[i] = select_bits(mask, va, oa);
        }
    }
}

/// Snow circle q over its clipped box (shading needs the distance: branchy).
void blend_snow_circle(TileScratch& ts, size_t q, const TileRect& rect, float inv_h) {
    constexpr int T = CpuParallelRenderer::kTile;
    const float cx = ts.cx[q], cy = ts.cy[q], r = ts.cr[q], z = ts.cz[q];
    const int bx0 = ts.bx0[q], bx1 = ts.bx1[q], by0 = ts.by0[q], by1 = ts.by1[q];
    for (int j = by0; j < by1; ++j) {
        const float py = pixel_center(rect.y0 + j, inv_h);
        const int o = j * T;
        for (int i = bx0; i < bx1; ++i) {
            const float d2 = center_distance2(cx, cy, ts.px[i], py);
            if (!covers(d2, r)) continue;
            blend(ts.pr[o + i], ts.pg[o + i], ts.pb[o + i], ts.pa[o + i], shade_snow(d2, r, z));
        }
    }
}

/// Blends the tile's m gathered circles in input order; returns the
/// coverage tests done.
long long blend_tile(TileScratch& ts, bool snow, size_t m, const TileGrid& g, const TileRect& rect) {
    const float inv_w = 1.f / static_cast<float>(g.width), inv_h = 1.f / static_cast<float>(g.height);
    for (int i = 0; i < rect.w; ++i) ts.px[i] = pixel_center(rect.x0 + i, inv_w);
    long long tests = 0;
    for (size_t q = 0; q < m; ++q) {
        if (ts.bx0[q] >= ts.bx1[q] || ts.by0[q] >= ts.by1[q]) continue;
        tests += static_cast<long long>(ts.bx1[q] - ts.bx0[q]) * (ts.by1[q] - ts.by0[q]);
        if (snow) blend_snow_circle(ts, q, rect, inv_h);
        else blend_flat_circle(ts, q, rect, inv_h);
    }
    return tests;
}

}  // namespace

void CpuParallelRenderer::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    // A few chunks per thread, taken dynamically (a thread the OS holds back
    // does not hold up the others), of at least kGrain items each.
    constexpr int64_t kGrain = 64;
    const int threads = omp_get_max_threads();
    const int64_t chunks = std::min<int64_t>(int64_t(4) * threads, (n + kGrain - 1) / kGrain);
    if (chunks <= 1 || threads <= 1) {
        fn(0, n);
        return;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(static_cast<int>(std::min<int64_t>(threads, chunks)))
    for (int64_t c = 0; c < chunks; ++c) fn(n * c / chunks, n * (c + 1) / chunks);
}

TileLoads CpuParallelRenderer::tile_loads() { return TileLoads{tiles_x_, tiles_y_, kTile, loads_}; }

void CpuParallelRenderer::render_frame() {
    const TileGrid g = make_tile_grid(image_.width, image_.height, kTile);
    tiles_x_ = g.tiles_x;
    tiles_y_ = g.tiles_y;
    loads_.assign(static_cast<size_t>(g.tile_count()), 0);
    work_ = WorkCounts{};
    const int64_t n = static_cast<int64_t>(scene_.count());
    double bin_ms = 0, shade_ms = 0;
    for (int64_t b = 0; b < n;) {
        const int64_t e = batch_end(b);
        HostStopwatch tb;
        bin(b, e);
        bin_ms += tb.ms();
        HostStopwatch ts;
        shade();
        shade_ms += ts.ms();
        b = e;
    }
    extra_stages_ = {{"bin", "Render", bin_ms}, {"shade", "Render", shade_ms}};
}

int64_t CpuParallelRenderer::batch_end(int64_t begin) const {
    // A batch ends after batch_ circles or before its circle-tile pairs
    // (bounding-box count, an upper bound) would pass max_pairs_, so the tile
    // lists stay bounded however large the circles are; a single circle over
    // the budget still gets a batch of its own.
    const int64_t n = static_cast<int64_t>(scene_.count());
    int64_t e = begin, pairs = 0;
    while (e < n && e - begin < batch_) {
        const PixelBox box = circle_pixel_box(scene_.x[e], scene_.y[e], scene_.radius[e], image_.width, image_.height);
        const int64_t c = tiles_of_box(box, kTile).count();
        if (e > begin && pairs + c > max_pairs_) break;
        pairs += c;
        ++e;
    }
    return e;
}

void CpuParallelRenderer::bin(int64_t begin, int64_t end) {
    const TileGrid g = make_tile_grid(image_.width, image_.height, kTile);
    const int64_t tiles = g.tile_count();
    const float inv_w = 1.f / static_cast<float>(g.width), inv_h = 1.f / static_cast<float>(g.height);
    const int64_t n = end - begin;
    // A few chunks per thread (taken dynamically), but at least kMinChunk
    // circles a chunk and at most kMaxCounters (chunk, tile) counters.
    constexpr int64_t kMinChunk = 256, kMaxCounters = int64_t(1) << 22;
    const int threads = omp_get_max_threads();
    const int64_t chunks = std::max<int64_t>(
        1, std::min({int64_t(4) * threads, (n + kMinChunk - 1) / kMinChunk, kMaxCounters / tiles}));
    const int team = static_cast<int>(std::min<int64_t>(threads, chunks));
    chunk_counts_.assign(static_cast<size_t>(chunks * tiles), 0);
    const float* xs = scene_.x.data();
    const float* ys = scene_.y.data();
    const float* rs = scene_.radius.data();
    auto chunk_begin = [&](int64_t c) { return begin + n * c / chunks; };

    // 1. Count circles per (chunk, tile).
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
    for (int64_t c = 0; c < chunks; ++c) {
        int64_t* cnt = chunk_counts_.data() + c * tiles;
        for (int64_t k = chunk_begin(c); k < chunk_begin(c + 1); ++k)
            for_each_listed_tile(xs[k], ys[k], rs[k], g, inv_w, inv_h, [cnt](int t) { ++cnt[t]; });
    }

    // 2. Exclusive scan in (tile, chunk) order: counts become write cursors.
    tile_begin_.resize(static_cast<size_t>(tiles + 1));
    int64_t run = 0;
    for (int64_t t = 0; t < tiles; ++t) {
        tile_begin_[t] = run;
        for (int64_t c = 0; c < chunks; ++c) {
            int64_t& v = chunk_counts_[c * tiles + t];
            const int64_t cnt = v;
            v = run;
            run += cnt;
        }
        loads_[t] += static_cast<int>(run - tile_begin_[t]);
    }
    tile_begin_[tiles] = run;
    list_.resize(static_cast<size_t>(run));
    work_.circle_tile_pairs += run;

    // 3. Fill: each chunk writes its circles, in order, into its segments.
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
    for (int64_t c = 0; c < chunks; ++c) {
        int64_t* cur = chunk_counts_.data() + c * tiles;
        uint32_t* out = list_.data();
        for (int64_t k = chunk_begin(c); k < chunk_begin(c + 1); ++k) {
            const uint32_t id = static_cast<uint32_t>(k);
            for_each_listed_tile(xs[k], ys[k], rs[k], g, inv_w, inv_h, [cur, out, id](int t) { out[cur[t]++] = id; });
        }
    }
}

void CpuParallelRenderer::shade() {
    const TileGrid g = make_tile_grid(image_.width, image_.height, kTile);
    const int tiles = g.tile_count();
    long long tests = 0;
#pragma omp parallel reduction(+ : tests)
    {
        TileScratch ts;
#pragma omp for schedule(dynamic, 1)
        for (int t = 0; t < tiles; ++t) {
            const int64_t lb = tile_begin_[t], le = tile_begin_[t + 1];
            if (lb == le) continue;
            const TileRect rect = tile_rect(g, t);
            gather_circles(ts, scene_, list_.data() + lb, static_cast<size_t>(le - lb), g, rect);
            load_tile(ts, image_, rect);
            tests += blend_tile(ts, scene_.shade == ShadeMode::Snow, static_cast<size_t>(le - lb), g, rect);
            store_tile(ts, image_, rect);
        }
    }
    work_.coverage_tests += tests;
}

}  // namespace cr
