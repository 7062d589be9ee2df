// Coalescence on the CPU (coalescence.h): circles binned to 16x16 tiles in
// input order, then each tile's pixels on its own thread, each pixel's
// fragments gathered from its tile's list and walked both ways.
#include "render/cpu/coalescence.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "render/core/coalesce.h"
#include "render/core/tile_math.h"
#include "render/cpu/cpu_stages.h"

namespace cr {

namespace {

constexpr int kTile = 16;

/// The circles binning lists for each tile of `g` (for_each_listed_tile, as
/// the cpu renderer bins), in input order; `boxes` gets every circle's pixel
/// box (cpuref shades only inside it).
std::vector<std::vector<int>> bin_circles(const Scene& s, const TileGrid& g, std::vector<PixelBox>& boxes) {
    std::vector<std::vector<int>> lists(static_cast<size_t>(g.tile_count()));
    boxes.resize(s.count());
    const float inv_w = 1.f / static_cast<float>(g.width), inv_h = 1.f / static_cast<float>(g.height);
    for (size_t k = 0; k < s.count(); ++k) {
        boxes[k] = circle_pixel_box(s.x[k], s.y[k], s.radius[k], g.width, g.height);
        for_each_listed_tile(s.x[k], s.y[k], s.radius[k], g, inv_w, inv_h,
                             [&](int t) { lists[static_cast<size_t>(t)].push_back(static_cast<int>(k)); });
    }
    return lists;
}

/// True when the three floats are the same bits.
bool same_rgb(const float* a, const float* b) { return std::memcmp(a, b, 3 * sizeof(float)) == 0; }

/// Per-thread sums of coalescence_stats.
struct Sums {
    long long full = 0, done = 0, mismatches = 0, from_background = 0;
};

/// One pixel: its fragments, cpuref's blend of them, the coalescing walk.
void pixel_both_ways(const Scene& s, const std::vector<int>& list, const std::vector<PixelBox>& boxes, int i, int j,
                     const ValueBounds& bounds, int first_window, std::vector<Fragment>& frags, CoalescenceStats& out,
                     Sums& sums) {
    const float inv_w = 1.f / static_cast<float>(out.width), inv_h = 1.f / static_cast<float>(out.height);
    frags.clear();
    Fragment f;
    for (int k : list) {
        const PixelBox& b = boxes[static_cast<size_t>(k)];
        if (i < b.min_x || i >= b.max_x || j < b.min_y || j >= b.max_y) continue;  // as cpuref: inside the box only
        if (circle_fragment(s, static_cast<size_t>(k), i, j, inv_w, inv_h, f)) frags.push_back(f);
    }
    const float bg = background_value(s.shade, j, out.height);
    float full[4] = {bg, bg, bg, 1.f};
    for (const Fragment& g : frags) blend(full[0], full[1], full[2], full[3], g);
    const float background[3] = {bg, bg, bg};
    const CoalescedPixel c = coalesce_pixel(frags, background, bounds, first_window);
    const size_t p = static_cast<size_t>(j) * out.width + i;
    out.covering[p] = c.covering;
    out.needed[p] = c.merged_after < 0 ? c.covering : c.merged_after;
    sums.full += c.covering;
    sums.done += c.blends;
    sums.mismatches += !same_rgb(c.rgb, full);
    sums.from_background += c.merged_after < 0 && c.covering > 0;
}

}  // namespace

int first_window_of(const std::vector<Fragment>& frags, const ValueBounds& bounds) {
    // Each blend shrinks the gap between the trajectories by its (1 - alpha):
    // walk back until what is left of hi - lo is below 2^-32. Floats near
    // 0.1..1 are 2^-27..2^-24 apart, so the two meet a few blends earlier;
    // the margin covers darker pixels (measured: 2^-30, 2^-32 and 2^-34 gave
    // rand100k 12.80, 12.98 and 12.75 times fewer blends at 256x256).
    float gap = bounds.hi - bounds.lo;
    int w = 0;
    for (size_t i = frags.size(); i-- > 0 && gap >= 0x1p-32f; ++w) gap *= sub_rn(1.f, frags[i].alpha);
    return std::max(w, 1);
}

CoalescedPixel coalesce_pixel(const std::vector<Fragment>& frags, const float background[3], const ValueBounds& bounds,
                              int first_window) {
    CoalescedPixel out;
    const int n = static_cast<int>(frags.size());
    out.covering = n;
    for (int w = first_window > 0 ? first_window : first_window_of(frags, bounds);; w *= 2) {
        ++out.windows;
        // Two trajectories cost two blends a fragment: a window pays only while
        // it is shorter than half the list; otherwise the whole list, once.
        const int k = n > 2 * w && bounds.valid ? n - w : 0;
        if (k == 0) {  // the whole list, from the background itself: exact by construction
            float p[4] = {background[0], background[1], background[2], 1.f};
            for (const Fragment& f : frags) blend(p[0], p[1], p[2], p[3], f);
            std::copy(p, p + 3, out.rgb);
            out.blends += n;
            return out;
        }
        Trajectories t = start_trajectories(bounds.lo, bounds.hi);
        int i = k;
        bool met = false;
        while (i < n && !met) {
            met = blend_trajectories(t, frags[static_cast<size_t>(i++)]);
            out.blends += 2;
        }
        if (!met) continue;  // not yet equal: an earlier start, twice the window
        out.start = k;
        out.merged_after = i - k;
        float unused = 0.f;
        for (; i < n; ++i, ++out.blends) blend(t.lo[0], t.lo[1], t.lo[2], unused, frags[static_cast<size_t>(i)]);
        std::copy(t.lo, t.lo + 3, out.rgb);
        return out;
    }
}

CoalescenceStats coalescence_stats(const Scene& s, int width, int height, int first_window) {
    CoalescenceStats out;
    out.width = width;
    out.height = height;
    out.covering.assign(static_cast<size_t>(width) * height, 0);
    out.needed.assign(out.covering.size(), 0);
    const TileGrid g = make_tile_grid(width, height, kTile);
    const int tiles_x = g.tiles_x, tiles_y = g.tiles_y;
    std::vector<PixelBox> boxes;
    const std::vector<std::vector<int>> lists = bin_circles(s, g, boxes);
    const ValueBounds bounds = value_bounds(s);
    Sums total;
#pragma omp parallel
    {
        Sums mine;
        std::vector<Fragment> frags;
#pragma omp for schedule(dynamic, 4)
        for (int t = 0; t < tiles_x * tiles_y; ++t) {
            const int tx = t % tiles_x, ty = t / tiles_x;
            for (int j = ty * kTile; j < std::min(height, (ty + 1) * kTile); ++j)
                for (int i = tx * kTile; i < std::min(width, (tx + 1) * kTile); ++i)
                    pixel_both_ways(s, lists[static_cast<size_t>(t)], boxes, i, j, bounds, first_window, frags, out,
                                    mine);
        }
#pragma omp critical
        {
            total.full += mine.full;
            total.done += mine.done;
            total.mismatches += mine.mismatches;
            total.from_background += mine.from_background;
        }
    }
    out.blends_full = total.full;
    out.blends_done = total.done;
    out.mismatches = total.mismatches;
    out.from_background = total.from_background;
    return out;
}

int percentile(std::vector<int> values, double fraction) {
    if (values.empty()) return 0;
    const size_t at = std::min(values.size() - 1, static_cast<size_t>(std::ceil(fraction * values.size())) - (fraction > 0));
    std::nth_element(values.begin(), values.begin() + static_cast<long>(at), values.end());
    return values[at];
}

}  // namespace cr
