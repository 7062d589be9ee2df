#include "render/core/numbers.h"

namespace cr {

bool parse_integer(const std::string& text, long long lo, long long hi, long long& out) {
    // 18 digits always fit a long long; longer text is out of every range used.
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    long long v = 0;
    for (char c : text) v = v * 10 + (c - '0');
    if (v < lo || v > hi) return false;
    out = v;
    return true;
}

}  // namespace cr
