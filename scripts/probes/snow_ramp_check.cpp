// Checks snow_ramp (render/core/shading.h: the index and the table entries
// from three comparisons) against the table lookup it replaced (an int
// conversion of s = 4t, clamped to 0..3, and the table's rows selected by
// that int), for every one of the 2^32 float bit patterns of t, every bit
// of red, green and blue (two NaNs count as equal). The table lookup's
// int(s) is undefined past 2^31 on the host (x86 gives INT_MIN, so the old
// host code took row 0 there); the reference below takes the GPU's
// saturating conversion (row 3), as the new code does. Differences are
// counted apart for t below 2^29 (the claim: none) and at or above it
// (against the GPU's conversion; a covered pixel's t is at most about 1,
// so neither the old host rows nor these can appear in an image).
//
// Build and run (from the project root; no GPU, no library; the project's
// host code is built without FMA contraction, so is this):
//   g++ -O2 -ffp-contract=off -fopenmp -std=c++17 -I. scripts/probes/snow_ramp_check.cpp -o /tmp/snow_ramp_check
//   /tmp/snow_ramp_check
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "render/core/shading.h"

namespace {

/// The table lookup as cpuref computed it before (an int index).
void table_ramp(float t, float& r, float& g, float& b) {
    const auto red = [](int i) { return i < 2 ? 1.f : .8f; };
    const auto green = [](int i) { return i < 2 ? 1.f : (i < 4 ? .9f : .8f); };
    const float s = cr::mul_rn(t, 4.f);
    int base = s >= 2147483648.f ? 3 : static_cast<int>(s);  // the GPU's saturating conversion past 2^31
    if (std::isnan(s)) base = 0;
    if (base > 3) base = 3;
    if (base < 0) base = 0;
    const float w = cr::sub_rn(s, static_cast<float>(base));
    const float v = cr::sub_rn(1.f, w);
    r = cr::add_rn(cr::mul_rn(v, red(base)), cr::mul_rn(w, red(base + 1)));
    g = cr::add_rn(cr::mul_rn(v, green(base)), cr::mul_rn(w, green(base + 1)));
    b = cr::add_rn(cr::mul_rn(v, 1.f), cr::mul_rn(w, 1.f));
}

bool same(float a, float b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    uint32_t x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    return x == y;
}

}  // namespace

int main() {
    long long low = 0, high = 0, checked = 0;
#pragma omp parallel for reduction(+ : low, high, checked) schedule(static, 1 << 20)
    for (long long bits = 0; bits < (1ll << 32); ++bits) {
        const uint32_t u = static_cast<uint32_t>(bits);
        float t;
        std::memcpy(&t, &u, 4);
        float r0, g0, b0, r1, g1, b1;
        table_ramp(t, r0, g0, b0);
        cr::snow_ramp(t, r1, g1, b1);
        const bool ok = same(r0, r1) && same(g0, g1) && same(b0, b1);
        if (!ok) {
            if (std::fabs(t) < 536870912.f) ++low;  // 2^29
            else ++high;
        }
        ++checked;
    }
    std::printf("snow_ramp against the table lookup: %lld floats t, %lld differ below 2^29 (must be 0), %lld at or "
                "above (against the GPU's saturating int(s))\n",
                checked, low, high);
    return low == 0 ? 0 : 1;
}
