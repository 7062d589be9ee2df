// Image comparison: the statistics `--check` prints and the pass rules.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "render/image_io.h"

namespace cr {

/// The project's per-channel tolerance (any of R, G, B beyond it mismatches).
constexpr float kStrictTolerance = 1e-4f;
/// The course checker's per-channel tolerance.
constexpr float kCourseTolerance = 0.1f;
/// Mismatching pixels allowed before a comparison fails (rim pixels).
constexpr int64_t kAllowedMismatches = 5;

/// Statistics of `test` against `reference` over R, G, B (alpha ignored).
struct CompareStats {
    bool same_size = true;
    double max_abs_error = 0;     ///< largest |test - ref| over R, G, B
    double mean_abs_error = 0;    ///< mean |test - ref| over all R, G, B values
    double psnr_db = 0;           ///< 10 log10(1 / MSE), values clamped to [0,1]; inf when equal
    int64_t mismatches_strict = 0;  ///< pixels beyond 1e-4 (or NaN/Inf)
    int64_t mismatches_course = 0;  ///< pixels beyond 0.1 (or NaN/Inf)
    int64_t mismatches_custom = 0;  ///< pixels beyond `tolerance` (or NaN/Inf)
    float tolerance = kStrictTolerance;  ///< the tolerance that decides pass
    bool pass = false;            ///< same size and mismatches_custom <= 5
};

/// The error of one pixel, the rule every comparison uses: the largest
/// |a - b| over R, G, B (alpha ignored), or +infinity when any of those six
/// values is NaN or infinite. `a`, `b`: RGBA floats of the two images.
float pixel_error(const float* a, const float* b);

/// Compares two images channel by channel; `tolerance` is the rule that
/// decides `pass` (kStrictTolerance by default).
CompareStats compare_images(const Image& test, const Image& reference,
                            float tolerance = kStrictTolerance);

/// Parses `strict`, `course` or a positive number into a tolerance.
/// Throws std::invalid_argument with a message naming the bad value.
float parse_tolerance(const std::string& text);

/// The colour diff_heatmap gives a pixel whose largest channel error is
/// `abs_error`: black when 0, blue -> red -> yellow on a log scale from 1e-6
/// to 1, magenta beyond `tolerance` (or NaN). RGB in 0..1. Shared with the
/// GUI's colour legend.
std::array<float, 3> diff_heat_color(float abs_error, float tolerance);

/// A heat map of |test - ref| (max over R, G, B): black where equal, then
/// blue -> red -> yellow on a log scale from 1e-6 to 1; magenta for pixels
/// beyond `tolerance`. Same size as the inputs.
Image diff_heatmap(const Image& test, const Image& reference, float tolerance);

/// The name of the rule a tolerance stands for: "strict (1e-4)", "course
/// (0.1)", or "custom (VALUE)" with VALUE as written (0.01, not 0.0099999998).
std::string rule_name(float tolerance);

/// One-line human summary of the statistics: errors, PSNR, and the pixels
/// beyond each rule, each rule named once (strict, course, and a custom
/// tolerance when one decides), the deciding one marked "(this rule
/// decides: at most 5 allowed)".
std::string describe(const CompareStats& s);

}  // namespace cr
