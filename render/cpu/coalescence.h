// Exact early stopping by coalescence, on the CPU (render/core/coalesce.h
// has the math and why it is exact): each pixel's covering circles are
// walked from the end in windows that double until two trajectories started
// at the lowest and the highest value a pixel can hold meet; the pixel is
// then bit for bit cpuref's. `render coalescence` prints these figures per
// scene (docs/PERFORMANCE.md) and the GUI's Teaching tab draws the blends
// each pixel needed as a heat map.
#pragma once

#include <vector>

#include "render/core/circles.h"
#include "render/core/coalesce.h"
#include "render/core/shading.h"

namespace cr {

/// One pixel, stopped early.
struct CoalescedPixel {
    float rgb[3] = {0, 0, 0};
    int covering = 0;       ///< fragments (circles covering the pixel)
    int start = 0;          ///< the first fragment blended (0: all, from the background itself)
    int merged_after = -1;  ///< fragments from `start` until the trajectories were equal (-1: started at 0)
    long long blends = 0;   ///< blend steps done: two a fragment while the trajectories differ, then one
    int windows = 0;        ///< windows tried (1, 2, ...: each twice the last)
};

/// The first window of a pixel: fragments from the end until the product of
/// their (1 - alpha) times hi - lo is below 2^-32 (the trajectories' gap
/// shrinks by that product; floats near 0.1..1 lie 2^-27..2^-24 apart, the
/// rest is a margin for darker pixels): 34 for alpha .5 and hi - lo = 2, the
/// whole list for snow's faint flakes. At least 1.
int first_window_of(const std::vector<Fragment>& fragments, const ValueBounds& bounds);

/// The pixel from its fragments in input order and its background, with a
/// first window of `first_window` fragments from the end (0: first_window_of,
/// from the alphas), doubling while a window
/// is shorter than half the list (two trajectories cost two blends a
/// fragment), then the whole list from the background (see file comment).
/// Without valid bounds, all fragments from the background. At most three
/// times the blends of the plain walk.
CoalescedPixel coalesce_pixel(const std::vector<Fragment>& fragments, const float background[3],
                              const ValueBounds& bounds, int first_window);

/// The figures of a whole frame (the scene as it is, at width x height).
struct CoalescenceStats {
    int width = 0, height = 0;
    std::vector<int> covering;  ///< per pixel (row 0 at the bottom): circles covering it
    std::vector<int> needed;    ///< per pixel: fragments the trajectories needed to meet (covering when blended from the background)
    long long blends_full = 0;  ///< blends cpuref does (the sum of `covering`)
    long long blends_done = 0;  ///< blends the coalescing walk does
    long long mismatches = 0;   ///< pixels whose result differs in any bit of R, G or B from cpuref's (0: exact)
    long long from_background = 0;  ///< pixels that fell back to blending everything

    /// How many times fewer blends the walk did than cpuref (blends_full /
    /// blends_done; 0 when it did none).
    double reduction() const { return blends_done > 0 ? static_cast<double>(blends_full) / blends_done : 0.0; }
};

/// Walks every pixel of `scene` at width x height both ways (coalescing and
/// in full) on all cores; windows start at `first_window` fragments (0: from
/// each pixel's alphas, first_window_of).
CoalescenceStats coalescence_stats(const Scene& scene, int width, int height, int first_window = 0);

/// The value at `fraction` (0..1) of the sorted values (nearest rank); 0 when empty.
int percentile(std::vector<int> values, double fraction);

}  // namespace cr
