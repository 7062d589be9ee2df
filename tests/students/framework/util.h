// Fixture framework header (circle-renderer's tests, not course code).
#ifndef FIXTURE_UTIL_H
#define FIXTURE_UTIL_H

#include <algorithm>

#define CLAMP(x, lo, hi) std::max(lo, std::min(x, hi))

#endif
