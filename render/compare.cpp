#include "render/compare.h"

#include "render/core/bands.h"
#include "render/core/numbers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace cr {

float pixel_error(const float* a, const float* b) {
    float worst = 0;
    for (int c = 0; c < 3; ++c) {
        if (!std::isfinite(a[c]) || !std::isfinite(b[c])) return std::numeric_limits<float>::infinity();
        worst = std::max(worst, std::fabs(a[c] - b[c]));
    }
    return worst;
}

namespace {
/// What one band of rows adds to a comparison (merged in band order, so the
/// sums are the same for a given number of bands, run after run).
struct BandSums {
    double sum_abs = 0, sum_sq = 0, max_abs = 0;
    int64_t strict = 0, course = 0, custom = 0;
};

BandSums compare_pixels(const float* test, const float* ref, size_t begin, size_t end, float tolerance) {
    BandSums s;
    for (size_t p = begin; p < end; ++p) {
        const float* pa = test + 4 * p;
        const float* pb = ref + 4 * p;
        if (std::memcmp(pa, pb, 3 * sizeof(float)) == 0 && std::isfinite(pa[0]) && std::isfinite(pa[1]) &&
            std::isfinite(pa[2]))
            continue;  // equal RGB: adds 0 to every sum and count (most pixels of a correct frame)
        const float worst = pixel_error(pa, pb);  // +inf for NaN/Inf: beyond every rule
        for (int c = 0; c < 3; ++c) {
            const float a = pa[c], b = pb[c];
            if (!std::isfinite(a) || !std::isfinite(b)) continue;
            s.sum_abs += std::fabs(a - b);
            const double ca = std::min(std::max(a, 0.f), 1.f), cb = std::min(std::max(b, 0.f), 1.f);
            s.sum_sq += (ca - cb) * (ca - cb);
        }
        s.max_abs = std::max(s.max_abs, static_cast<double>(worst));
        s.strict += worst > kStrictTolerance;
        s.course += worst > kCourseTolerance;
        s.custom += worst > tolerance;
    }
    return s;
}
}  // namespace

CompareStats compare_images(const Image& test, const Image& ref, float tolerance) {
    CompareStats s;
    s.tolerance = tolerance;
    if (test.width != ref.width || test.height != ref.height) {
        s.same_size = false;
        s.pass = false;
        s.max_abs_error = std::numeric_limits<double>::infinity();
        return s;
    }
    const size_t n = test.pixel_count();
    // bands of whole pixels, two images' worth of traffic (1024x1024: 4 bands)
    std::vector<BandSums> bands(static_cast<size_t>(bands_for_bytes(2 * n * 4 * sizeof(float))));
    const size_t k = bands.size();
    for_bands(k, static_cast<int>(k), [&](size_t b0, size_t b1) {
        for (size_t b = b0; b < b1; ++b)
            bands[b] = compare_pixels(test.data.data(), ref.data.data(), n * b / k, n * (b + 1) / k, tolerance);
    });
    double sum_abs = 0, sum_sq = 0;
    for (const BandSums& b : bands) {
        sum_abs += b.sum_abs;
        sum_sq += b.sum_sq;
        s.max_abs_error = std::max(s.max_abs_error, b.max_abs);
        s.mismatches_strict += b.strict;
        s.mismatches_course += b.course;
        s.mismatches_custom += b.custom;
    }
    const double values = 3.0 * static_cast<double>(n);
    s.mean_abs_error = n ? sum_abs / values : 0;
    const double mse = n ? sum_sq / values : 0;
    s.psnr_db = mse > 0 ? 10.0 * std::log10(1.0 / mse) : std::numeric_limits<double>::infinity();
    s.pass = s.mismatches_custom <= kAllowedMismatches;
    return s;
}

float parse_tolerance(const std::string& text) {
    if (text == "strict") return kStrictTolerance;
    if (text == "course") return kCourseTolerance;
    try {
        size_t used = 0;
        const float v = std::stof(text, &used);
        if (used == text.size() && std::isfinite(v) && v > 0) return v;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument("bad --tolerance '" + text +
                                "': use strict (1e-4), course (0.1) or a positive number");
}

std::array<float, 3> diff_heat_color(float abs_error, float tolerance) {
    if (!(abs_error <= tolerance)) return {1.f, 0.f, 1.f};  // beyond tolerance, or NaN: magenta
    if (abs_error == 0.f) return {0.f, 0.f, 0.f};          // equal: black
    // log scale: 1e-6 -> 0, 1 -> 1; blue -> red -> yellow
    const float t = std::min(std::max((std::log10(abs_error) + 6.f) / 6.f, 0.f), 1.f);
    return {std::min(2.f * t, 1.f), std::max(2.f * t - 1.f, 0.f), std::max(1.f - 2.f * t, 0.f) * 0.8f + 0.2f};
}

Image diff_heatmap(const Image& test, const Image& ref, float tolerance) {
    Image out(ref.width, ref.height);
    if (test.width != ref.width || test.height != ref.height) return out;
    for (size_t p = 0; p < ref.pixel_count(); ++p) {
        const std::array<float, 3> rgb = diff_heat_color(pixel_error(&test.data[4 * p], &ref.data[4 * p]), tolerance);
        float* o = &out.data[4 * p];
        o[0] = rgb[0];
        o[1] = rgb[1];
        o[2] = rgb[2];
        o[3] = 1.f;
    }
    return out;
}

std::string rule_name(float tolerance) {
    if (tolerance == kStrictTolerance) return "strict (1e-4)";
    if (tolerance == kCourseTolerance) return "course (0.1)";
    char buf[48];
    std::snprintf(buf, sizeof buf, "custom (%g)", as_written(tolerance));
    return buf;
}

std::string describe(const CompareStats& s) {
    if (!s.same_size) return "image sizes differ";
    const bool custom = s.tolerance != kStrictTolerance && s.tolerance != kCourseTolerance;
    char decides[64];
    std::snprintf(decides, sizeof decides, " (this rule decides: at most %lld allowed)",
                  static_cast<long long>(kAllowedMismatches));
    const auto rule = [&](float tol, int64_t count) {
        return rule_name(tol) + ": " + std::to_string(count) + (s.tolerance == tol ? decides : "");
    };
    char head[160];
    std::snprintf(head, sizeof head, "max abs error %.3g, mean abs error %.3g, PSNR %.1f dB; pixels beyond ",
                  s.max_abs_error, s.mean_abs_error, s.psnr_db);
    std::string text = head + rule(kStrictTolerance, s.mismatches_strict) + ", " +
                       rule(kCourseTolerance, s.mismatches_course);
    if (custom) text += ", " + rule(s.tolerance, s.mismatches_custom);
    return text;
}

}  // namespace cr
