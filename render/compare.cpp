#include "render/compare.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace cr {

CompareStats compare_images(const Image& test, const Image& ref, float tolerance) {
    CompareStats s;
    s.tolerance = tolerance;
    if (test.width != ref.width || test.height != ref.height) {
        s.same_size = false;
        s.pass = false;
        s.max_abs_error = std::numeric_limits<double>::infinity();
        return s;
    }
    double sum_abs = 0, sum_sq = 0;
    const size_t n = test.pixel_count();
    for (size_t p = 0; p < n; ++p) {
        float worst = 0;
        bool bad = false;
        for (int c = 0; c < 3; ++c) {
            const float a = test.data[4 * p + c], b = ref.data[4 * p + c];
            if (!std::isfinite(a) || !std::isfinite(b)) {
                bad = true;
                continue;
            }
            const float e = std::fabs(a - b);
            worst = std::max(worst, e);
            sum_abs += e;
            const double ca = std::min(std::max(a, 0.f), 1.f), cb = std::min(std::max(b, 0.f), 1.f);
            sum_sq += (ca - cb) * (ca - cb);
        }
        if (bad) s.max_abs_error = std::numeric_limits<double>::infinity();
        s.max_abs_error = std::max(s.max_abs_error, static_cast<double>(worst));
        s.mismatches_strict += (bad || worst > kStrictTolerance);
        s.mismatches_course += (bad || worst > kCourseTolerance);
        s.mismatches_custom += (bad || worst > tolerance);
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

Image diff_heatmap(const Image& test, const Image& ref, float tolerance) {
    Image out(ref.width, ref.height);
    if (test.width != ref.width || test.height != ref.height) return out;
    for (size_t p = 0; p < ref.pixel_count(); ++p) {
        float worst = 0;
        bool bad = false;
        for (int c = 0; c < 3; ++c) {
            const float a = test.data[4 * p + c], b = ref.data[4 * p + c];
            if (!std::isfinite(a) || !std::isfinite(b)) bad = true;
            else worst = std::max(worst, std::fabs(a - b));
        }
        float* o = &out.data[4 * p];
        o[3] = 1.f;
        if (bad || worst > tolerance) {  // beyond tolerance: magenta
            o[0] = 1.f; o[1] = 0.f; o[2] = 1.f;
            continue;
        }
        if (worst == 0.f) {  // equal: black
            o[0] = o[1] = o[2] = 0.f;
            continue;
        }
        // log scale: 1e-6 -> 0, 1 -> 1; blue -> red -> yellow
        const float t = std::min(std::max((std::log10(worst) + 6.f) / 6.f, 0.f), 1.f);
        o[0] = std::min(2.f * t, 1.f);
        o[1] = std::max(2.f * t - 1.f, 0.f);
        o[2] = std::max(1.f - 2.f * t, 0.f) * 0.8f + 0.2f;
    }
    return out;
}

std::string describe(const CompareStats& s) {
    if (!s.same_size) return "image sizes differ";
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "max abs error %.3g, mean abs error %.3g, PSNR %.1f dB, mismatching pixels: "
                  "%lld (>1e-4), %lld (>0.1 course), %lld (>%g, the rule used; %lld allowed)",
                  s.max_abs_error, s.mean_abs_error, s.psnr_db,
                  static_cast<long long>(s.mismatches_strict),
                  static_cast<long long>(s.mismatches_course),
                  static_cast<long long>(s.mismatches_custom), static_cast<double>(s.tolerance),
                  static_cast<long long>(kAllowedMismatches));
    return buf;
}

}  // namespace cr
