// The one integer parser and the limits every front end shares.
#pragma once

#include <string>

namespace cr {

/// Largest image side in pixels, for every renderer and front end.
constexpr int kMaxImageSide = 16384;

/// Parses `text` as a whole number in lo..hi (0 <= lo <= hi): digits only
/// (no sign, blanks or exponent) and no more of them than `hi` has, so
/// zero-padded text longer than `hi` is refused. Returns false, leaving
/// `out` unchanged, when it is not one.
bool parse_integer(const std::string& text, long long lo, long long hi, long long& out);

/// The float `v` as a double with the digits a person would write: the
/// shortest decimal that reads back as the same float (1e-4f -> 0.0001,
/// not 9.999999747378752e-05). Infinities and NaN pass through.
double as_written(float v);

/// `v` rounded to `digits` significant decimal digits (1..17), for figures
/// such as timings whose last digits are noise (0.0331493 -> 0.03315 at 4).
double round_significant(double v, int digits);

/// Checks a renderer's image size (pixels): throws std::invalid_argument
/// ("image size must be within 1..16384 in each dimension") unless width and
/// height are both within 1..kMaxImageSide. Every renderer's setup() calls it.
void require_valid_image_size(int width, int height);

}  // namespace cr
