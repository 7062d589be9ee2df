// The one integer parser and the limits every front end shares.
#pragma once

#include <string>

namespace cr {

/// Largest image side in pixels, for every renderer and front end.
constexpr int kMaxImageSide = 16384;

/// Parses `text` as a whole number in lo..hi (digits only: no sign, blanks
/// or exponent). Returns false, leaving `out` unchanged, when it is not one.
bool parse_integer(const std::string& text, long long lo, long long hi, long long& out);

/// True when width and height are both within 1..kMaxImageSide.
inline bool valid_image_size(int width, int height) {
    return width >= 1 && height >= 1 && width <= kMaxImageSide && height <= kMaxImageSide;
}

}  // namespace cr
