// Stage "shade", front-to-back kernel `ftb`: the tiled kernel's layout and
// per-tile lists (binning is the same), blended from the LAST circle of a
// tile's list to the first, so a pixel can stop once nothing behind it shows.
//
// The math. In input order, the course's "over" blend gives, for circles
// 1..n over background B:  rgb = sum_k a_k c_k prod_{j>k} (1 - a_j) + B prod_j (1 - a_j).
// Walking k = n, n-1, ..., 1 with a running transmittance T (T = 1 at first):
//     C += T * a_k * c_k;   T *= 1 - a_k;       and at the end  rgb = C + T * B
// is the same sum. Once T < 2^-20, everything still behind adds at most
// T * max|c| < 1.3e-6 (colors reach 1.2 in the random scenes): the pixel is
// done. The result is not bit-identical to cpuref (the sum is rounded in
// another order: about 1e-7), but within 1e-5 everywhere.
//
// Who does what: one block of 64 threads per 16x16 tile, thread t owns
// column t % 16, rows 4*(t/16)..+3 (as shade_tiled.cu). The tile's list is
// walked in chunks of 64 from its end: each chunk is compacted exactly as in
// shade_tiled.cu (exact circle-tile test, block scan, shared-memory list in
// input order), then every thread walks the chunk's hits from last to first.
// After each chunk, __syncthreads_and() asks whether every pixel of the tile
// is done; then the whole block stops (the answer is the same for every
// thread, so every thread reaches the same barriers; pixels outside the
// image count as done). That early exit is the kernel's point: on rand100k a
// pixel is covered by about 830 circles, of which about 20 are visible.
//
// Alpha: cpuref's alpha is 1 + the sum of every blended alpha; ftb adds only
// the alphas it blended, so it is smaller where a pixel stopped early. It is
// never below 1, and image files store alpha clamped to 1 (PNG and PPM here
// store only RGB), and --check compares only R, G, B: the files are the same.
//
// Batches: when a frame's pairs are binned in several batches (circles in
// input order), ftb shades them LAST batch first; between launches each
// pixel's (C, T) waits in a side buffer, and the launch of the first batch
// adds the background.
#include "kernels/cuda_check.h"
#include "kernels/tile_list.cuh"

namespace cr {

namespace {

using namespace tiles;

constexpr int kTile = 16, kRows = 4, kThreads = kTile * kTile / kRows;
constexpr float kDone = 1.f / 1048576.f;  // 2^-20: below this transmittance nothing behind shows

/// One thread's pixels: column px, rows py0..py0+3 (lx, ly0 inside the
/// tile); C and T as in the file comment.
struct FtbStrip {
    int px, py0, lx, ly0;
    float3 c[kRows];
    float t[kRows], alpha[kRows];
};

template <int VARIANT>
using Shared = TileShared<kThreads, VARIANT, kTile>;

__device__ __forceinline__ bool in_image(const FtbStrip& s, int r, const TileGrid& g) {
    return s.px < g.width && s.py0 + r < g.height;
}

/// True when every pixel of this thread is done (or outside the image).
__device__ __forceinline__ bool strip_done(const FtbStrip& s, const TileGrid& g) {
    bool done = true;
#pragma unroll
    for (int r = 0; r < kRows; ++r) done = done && (!in_image(s, r, g) || s.t[r] < kDone);
    return done;
}

/// The snow color ramp of snow_ramp (render/core/shading.h; SCENES.md's
/// 5-entry table, piecewise linear in s = 4t) written as clamps: red falls
/// from 1 to .8 while s goes from 1 to 2, green from 1 to .9 over the same
/// stretch and from .9 to .8 while s goes from 3 to 4, blue stays 1. The
/// same function, 2 clamps and 3 multiply-adds instead of the table's
/// index, selects and lerps; values differ from snow_ramp's by rounding
/// (~1e-7).
__device__ __forceinline__ void snow_ramp_fast(float t, float& r, float& g, float& b) {
    const float s = 4.f * t;
    const float first = __saturatef(s - 1.f), last = __saturatef(s - 3.f);
    r = fmaf(-.2f, first, 1.f);
    g = fmaf(-.1f, last, fmaf(-.1f, first, 1.f));
    b = 1.f;
}

/// Snow shading as shade_snow_scaled (render/core/shading.h) computes it,
/// with the GPU's fast approximations: t^2 = d2 * (1 / r^2) with the
/// reciprocal computed once per circle, t = t^2 * rsqrt(t^2), __expf and
/// the ramp as clamps (snow_ramp_fast). Each differs from the exactly
/// rounded operation by a few units in the last place (relative errors
/// near 1e-7), far inside ftb's 1e-5 bound; the exact kernels keep the
/// exactly rounded math. r = 0 (inv_r2 = inf) takes the exact path.
__device__ __forceinline__ Fragment shade_snow_fast(float d2, float r, float inv_r2, float max_alpha) {
    if (isinf(inv_r2)) return shade_snow_scaled(d2, r, max_alpha);
    const float t2 = d2 * inv_r2;
    const float t = t2 > 0.f ? t2 * rsqrtf(t2) : 0.f;
    Fragment f;
    snow_ramp_fast(t, f.r, f.g, f.b);
    f.alpha = max_alpha * __expf(-4.f * t2);
    return f;
}

/// Blends hit i of the chunk into the strip (d2 from the coverage tables,
/// as in shade_tiled.cu), behind what the strip holds.
template <bool SNOW, int VARIANT>
__device__ __forceinline__ void blend_hit_behind(FtbStrip& s, int i, const Shared<VARIANT>& sh) {
    const float4 col = sh.list.color(i);
    float d2[kRows];
    strip_distances(sh.tab, i, s.lx, s.ly0, d2);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        if (!(d2[r] <= col.w) || s.t[r] < kDone) continue;  // NaN: outside an extreme circle's box
        if (SNOW) {
            const float4 geom = sh.list.geom(i);
            const Fragment f = shade_snow_fast(d2[r], geom.z, col.y, col.x);
            const float w = s.t[r] * f.alpha;
            s.c[r] = make_float3(s.c[r].x + w * f.r, s.c[r].y + w * f.g, s.c[r].z + w * f.b);
            s.t[r] *= 1.f - f.alpha;
            s.alpha[r] += f.alpha;
        } else {  // flat: the list holds .5 * color, alpha .5
            s.c[r] = make_float3(s.c[r].x + s.t[r] * col.x, s.c[r].y + s.t[r] * col.y, s.c[r].z + s.t[r] * col.z);
            s.t[r] *= .5f;
            s.alpha[r] += .5f;
        }
    }
}

/// Blends the chunk's hits into the strip, last to first. With strip masks
/// the thread walks only its mask's bits, highest (latest) first.
template <bool SNOW, int VARIANT>
__device__ __forceinline__ void blend_back_to_front(FtbStrip& s, int hits, const Shared<VARIANT>& sh) {
    if constexpr ((VARIANT & kStripMask) != 0) {
        for (unsigned long long m = strip_hits(sh); m != 0;) {
            const int i = 63 - __clzll(static_cast<long long>(m));
            m &= ~(1ull << i);
            blend_hit_behind<SNOW, VARIANT>(s, i, sh);
        }
    } else {
        for (int i = hits - 1; i >= 0; --i) {
            if constexpr ((VARIANT & kRowCull) != 0)
                if (row_mask_skips<kTile, kRows>(sh.list.geom(i).w)) continue;  // warp-uniform
            blend_hit_behind<SNOW, VARIANT>(s, i, sh);
        }
    }
}

/// Loads the strip's state: (C, T) = (0, 1) for the first launch of a frame,
/// else what the previous launch (a later batch) left in `acc`.
__device__ __forceinline__ void load_strip(FtbStrip& s, const TileGrid& g, const float4* acc, bool first) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        s.c[r] = make_float3(0.f, 0.f, 0.f);
        s.t[r] = 1.f;
        s.alpha[r] = 0.f;
        if (!first && in_image(s, r, g)) {
            const float4 a = acc[size_t(s.py0 + r) * g.width + s.px];
            s.c[r] = make_float3(a.x, a.y, a.z);
            s.t[r] = a.w;
        }
    }
}

/// Writes the strip: the last launch of a frame (the first batch) composes
/// C + T * background into the image; earlier ones park (C, T) in `acc`. The
/// alphas blended are added to the image's alpha either way. With
/// `from_background` the image is not read: its pixels are the background.
__device__ __forceinline__ void store_strip(const FtbStrip& s, const DeviceCircles& c, const TileGrid& g,
                                            float4* image, float4* acc, bool last, bool from_background) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        if (!in_image(s, r, g)) continue;
        const size_t p = size_t(s.py0 + r) * g.width + s.px;
        const float bg = background_value(c.shade, s.py0 + r, g.height);
        float4 px = from_background ? make_float4(bg, bg, bg, 1.f) : image[p];
        px.w += s.alpha[r];
        if (last) {
            px.x = s.c[r].x + s.t[r] * px.x;
            px.y = s.c[r].y + s.t[r] * px.y;
            px.z = s.c[r].z + s.t[r] * px.z;
        } else {
            acc[p] = make_float4(s.c[r].x, s.c[r].y, s.c[r].z, s.t[r]);
        }
        image[p] = px;
    }
}

template <bool SNOW, int VARIANT>
__global__ void __launch_bounds__(kThreads)
    shade_ftb_kernel(DeviceCircles c, TileLists lists, TileGrid g, float4* image, float4* acc, bool first, bool last,
                     bool from_background) {
    __shared__ Shared<VARIANT> sh;
    if (lists.overflowed()) return;  // speculative binning fell short: the renderer redoes the frame
    const int tile_id = blockIdx.x;
    const int tx = tile_id % g.tiles_x, ty = tile_id / g.tiles_x;
    FtbStrip s;
    s.lx = static_cast<int>(threadIdx.x % kTile);
    s.ly0 = static_cast<int>(threadIdx.x / kTile) * kRows;
    s.px = tx * kTile + s.lx;
    s.py0 = ty * kTile + s.ly0;
    set_tile_centers(sh, g, tx, ty);
    load_strip(s, g, acc, first);
    const int64_t begin = lists.begin_of(tx, ty);
    const int64_t end = lists.end_of(tx, ty);
    const int64_t chunks = (end - begin + kThreads - 1) / kThreads;
    Candidate next = load_candidate(c, lists, begin + (chunks - 1) * kThreads + threadIdx.x, begin, end);
    for (int64_t k = chunks - 1; k >= 0; --k) {
        if (__syncthreads_and(strip_done(s, g))) break;  // the whole tile is done: uniform exit
        const Candidate cand = next;
        next = load_candidate(c, lists, begin + (k - 1) * kThreads + threadIdx.x, begin, end);  // the chunk before
        const int hits = compact_chunk<kThreads, VARIANT, kTile, SNOW>(c, cand, g, tx, ty, k, sh);
        if (hits == 0) continue;  // the same in every thread: nothing listed
        __syncthreads();  // the list is complete
        blend_back_to_front<SNOW, VARIANT>(s, hits, sh);
        // the next iteration's __syncthreads_and keeps the list until everyone is done with it
    }
    store_strip(s, c, g, image, acc, last, from_background);
}


template <bool SNOW, int FLAGS>
void launch_ftb_kernel(const FtbLaunch& l, cudaStream_t s) {
    shade_ftb_kernel<SNOW, FLAGS><<<l.g.tile_count(), kThreads, 0, s>>>(l.c, l.lists, l.g, l.image, l.acc, l.first,
                                                                        l.last, l.from_background);
}

template <bool SNOW>
void launch_ftb(const FtbLaunch& l, cudaStream_t s) {
    if (l.cull & kStripMask) launch_ftb_kernel<SNOW, kSplitList | kStripMask>(l, s);
    else if (l.cull & kRowCull) launch_ftb_kernel<SNOW, kSplitList | kRowCull>(l, s);
    else launch_ftb_kernel<SNOW, kSplitList>(l, s);
}

}  // namespace

void launch_shade_ftb(const FtbLaunch& l, cudaStream_t s) {
    if (l.from_background && !(l.first && l.last))
        throw std::invalid_argument("launch_shade_ftb: from_background needs a single launch (first and last)");
    if (l.g.tile != kTile) throw std::invalid_argument("the ftb kernel works on 16x16 tiles only (CR_CUDA_OPTIONS tile=16)");
    if (l.c.shade == ShadeMode::Snow) launch_ftb<true>(l, s);
    else launch_ftb<false>(l, s);
    check_launch("shade_ftb_kernel");
}

}  // namespace cr
