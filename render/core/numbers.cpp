#include "render/core/numbers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace cr {

void require_valid_image_size(int width, int height) {
    if (width < 1 || height < 1 || width > kMaxImageSide || height > kMaxImageSide)
        throw std::invalid_argument("image size must be within 1.." + std::to_string(kMaxImageSide) +
                                    " in each dimension");
}

bool parse_integer(const std::string& text, long long lo, long long hi, long long& out) {
    // No more digits than `hi` has ("000005" is not a --repeat of 5), and at
    // most 18, which always fit a long long.
    if (text.empty() || text.size() > std::min<size_t>(18, std::to_string(hi).size()) ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    long long v = 0;
    for (char c : text) v = v * 10 + (c - '0');
    if (v < lo || v > hi) return false;
    out = v;
    return true;
}

double as_written(float v) {
    if (!std::isfinite(v)) return v;
    char buf[32];
    for (int digits = 1; digits <= 9; ++digits) {  // 9 significant digits always round-trip a float
        std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
        if (std::strtof(buf, nullptr) == v) break;
    }
    return std::strtod(buf, nullptr);
}

double round_significant(double v, int digits) {
    if (!std::isfinite(v) || v == 0) return v;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits < 1 ? 1 : (digits > 17 ? 17 : digits), v);
    return std::strtod(buf, nullptr);
}

}  // namespace cr
