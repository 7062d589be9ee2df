// Checks div_by_reciprocal (render/core/hd_math.h) against the IEEE
// division on the CPU, far past what the unit tests run (issue 30, the
// exact snow shading's division; no GPU needed):
//   0. small precisions: for p = 6..14 bits, every pair of significands
//      (a in [1, 4), b in [1, 2)), in exact integer arithmetic with
//      round-half-even to p bits: the corrected quotient against the
//      correctly rounded one, and without the correction (the float case,
//      p = 24, cannot be exhausted; the emulation is first checked against
//      the hardware at p = 24);
//   1. whole binades: for 64 divisors b in [2^-7, 2^-6) (the radii of the
//      course's snow flakes; 16 with extreme significands, 48 spread by a
//      hash), every float a in [2^-9, 2^-5): 2^31 quotients;
//   2. random: 4e8 pairs, b log-uniform over [2^-40, 2^40], a in [0, 2b];
//   3. scenes: every covered pixel of every flake of snowsingle at
//      1024x1024, and of snow at frames 0, 150 and 300 (the fragments of
//      shade_snow_reciprocal against shade_snow_scaled, every bit).
// Prints the count of differences of each (all 0 is the claim).
//
// Build and run (from the project root, after scripts/setup.sh):
//   g++ -O2 -fopenmp -std=c++17 -I. scripts/probes/reciprocal_check.cpp build/libcr_cpu.a
//       build/libcr_scenes.a build/libcr_core.a -o /tmp/reciprocal_check && /tmp/reciprocal_check
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <omp.h>
#include <random>
#include <vector>

#include "render/core/shading.h"
#include "render/cpu/cpu_stages.h"
#include "scenes/scene.h"

using namespace cr;

namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/// x / 2^shift rounded to nearest, ties to even (x >= 0, shift >= 1).
__int128 round_shift(__int128 x, int shift) {
    const __int128 q = x >> shift, rest = x - (q << shift), half = __int128(1) << (shift - 1);
    return rest > half || (rest == half && (q & 1)) ? q + 1 : q;
}

/// A p-bit float as significand m (2^(p-1) <= m < 2^p, or 0) x 2^e.
struct Small {
    __int128 m;
    int e;
};

/// The exact value n / d (n, d > 0 integers scaled by 2^e) rounded to p
/// bits: the quotient's leading bit found, then round-half-even on the
/// remainder.
Small round_quotient(__int128 n, __int128 d, int e, int p) {
    int k = 0;  // n * 2^k / d in [2^(p-1), 2^p)
    while ((n << (k + 1)) / d < (__int128(1) << p) && (n << (k + 1)) / d >= 0 && k < 100) ++k;
    while ((n << k) / d >= (__int128(1) << p)) --k;
    const __int128 num = n << (k + 2), q = num / d, rem = num - q * d;
    // q has p + 2 bits: round the last two, the rest of the remainder as a sticky bit
    __int128 m = q >> 2;
    const int low = static_cast<int>(q & 3);
    const bool sticky = rem != 0;
    if (low > 2 || (low == 2 && (sticky || (m & 1)))) ++m;
    int ex = e - k;
    if (m == (__int128(1) << p)) m >>= 1, ++ex;
    return Small{m, ex};
}

bool same(const Small& x, const Small& y) { return x.m == y.m && (x.m == 0 || x.e == y.e); }

/// The exact x 2^e (x > 0) rounded to p bits.
Small round_exact(__int128 x, int e, int p) {
    int bits = 0;
    while ((x >> bits) != 0) ++bits;
    Small r = bits <= p ? Small{x << (p - bits), e - (p - bits)} : Small{round_shift(x, bits - p), e + bits - p};
    if (r.m == (__int128(1) << p)) r.m >>= 1, ++r.e;
    return r;
}

/// At p bits, a = am x 2^-(p-1) and b = bm x 2^-(p-1) (p-bit significands,
/// a in [1, 4), b in [1, 2)): `want` = a / b correctly rounded, `t` = the
/// corrected quotient of div_by_reciprocal (y = RN(1/b), q = RN(a y), the
/// remainder a - q b exact, t = RN(q + remainder y)), all in exact integers.
void emulate(__int128 am, __int128 bm, int p, Small& want, Small& t) {
    const __int128 one = __int128(1) << (p - 1);
    const int ea = -(p - 1), eb = -(p - 1);
    const Small y = round_quotient(one, bm, 0, p);
    want = round_quotient(am, bm, 0, p);
    const Small q = round_exact(am * y.m, ea + y.e, p);
    const int e = std::min(ea, q.e + eb);
    const __int128 rem = (am << (ea - e)) - ((q.m * bm) << (q.e + eb - e));
    const int ep = e + y.e, et = std::min(q.e, ep);
    t = round_exact((q.m << (q.e - et)) + ((rem * y.m) << (ep - et)), et, p);
}

void small_precisions() {
    // the emulation itself, at float precision against the hardware: 2e5 random pairs
    std::mt19937 rng(3);
    long long off = 0;
    const __int128 one24 = __int128(1) << 23;
    for (int k = 0; k < 200000; ++k) {
        const __int128 bm = one24 + rng() % (1u << 23);
        __int128 am = one24 + rng() % (3u << 23);
        if (am >= 2 * one24) am &= ~__int128(1);  // [2, 4): 24 bits step by 2
        const float a = std::ldexp(float(am), -23), b = std::ldexp(float(bm), -23);
        Small want, t;
        emulate(am, bm, 24, want, t);
        off += std::ldexp(float(want.m), want.e) != a / b ||
               std::ldexp(float(t.m), t.e) != div_by_reciprocal(a, b, div_rn(1.f, b));
    }
    std::printf("emulation at 24 bits against the hardware: %lld of 200000 pairs differ\n", off);
    for (int p = 6; p <= 14; ++p) {
        long long differ = 0, uncorrected = 0, n = 0;
        const __int128 one = __int128(1) << (p - 1);
        for (__int128 bm = one; bm < 2 * one; ++bm)
            for (__int128 am = one; am < 4 * one; am += am < 2 * one ? 1 : 2) {
                Small want, t;
                emulate(am, bm, p, want, t);
                differ += !same(t, want);
                uncorrected += !same(round_exact(am * round_quotient(one, bm, 0, p).m, -(p - 1) + round_quotient(one, bm, 0, p).e, p), want);
                ++n;
            }
        std::printf("precision %d bits: %lld of %lld quotients differ (without the correction: %lld)\n", p, differ, n,
                    uncorrected);
    }
}

bool differs(float a, float b) { return bits(div_by_reciprocal(a, b, div_rn(1.f, b))) != bits(a / b); }

void whole_binades() {
    std::vector<uint32_t> sig = {0x7fffff, 0x7ffffe, 0x7ffffd, 0x400001, 0x3fffff, 0x000001, 0x000003, 0x555555,
                                 0x2aaaaa, 0x7aaaab, 0x123457, 0x654321, 0x000002, 0x7ff000, 0x0007ff, 0x000000};
    for (uint32_t k = 0; k < 48; ++k) sig.push_back((k * 0x9E3779B1u) & 0x7fffff);
    long long differ = 0, n = 0;
#pragma omp parallel for reduction(+ : differ, n) schedule(dynamic)
    for (int j = 0; j < int(sig.size()); ++j) {
        const float b = from_bits((120u << 23) | sig[j]);
        for (uint32_t e = 118; e <= 121; ++e)
            for (uint32_t m = 0; m < (1u << 23); ++m) {
                differ += differs(from_bits((e << 23) | m), b);
                ++n;
            }
    }
    std::printf("whole binades: %lld of %lld quotients differ\n", differ, n);
}

void random_pairs() {
    long long differ = 0, n = 0;
#pragma omp parallel reduction(+ : differ, n)
    {
        std::mt19937_64 rng(7 + 1000003ull * static_cast<unsigned>(omp_get_thread_num()));
        std::uniform_real_distribution<float> exponent(-40.f, 40.f), fraction(0.f, 2.f);
#pragma omp for
        for (long long k = 0; k < 400000000ll; ++k) {
            const float b = std::exp2(exponent(rng));
            if (!reciprocal_divides(b)) continue;
            differ += differs(mul_rn(fraction(rng), b), b);
            ++n;
        }
    }
    std::printf("random: %lld of %lld quotients differ\n", differ, n);
}

void scene_fragments(const char* name, int frame) {
    Scene s = make_scene(name, 0);
    for (int f = 0; f < frame; ++f) advance_circles(s, 0, static_cast<int64_t>(s.count()));
    const int size = 1024;
    const float inv = 1.f / static_cast<float>(size);
    long long differ = 0, covered = 0, refused = 0;
#pragma omp parallel for reduction(+ : differ, covered, refused) schedule(dynamic, 256)
    for (long long i = 0; i < static_cast<long long>(s.count()); ++i) {
        const float r = s.radius[i], ma = snow_max_alpha(s.z[i]), inv_r = div_rn(1.f, r);
        if (!reciprocal_divides(r)) {
            ++refused;
            continue;
        }
        const PixelBox box = circle_pixel_box(s.x[i], s.y[i], r, size, size);
        for (int y = box.min_y; y < box.max_y; ++y)
            for (int x = box.min_x; x < box.max_x; ++x) {
                const float d2 = center_distance2(s.x[i], s.y[i], pixel_center(x, inv), pixel_center(y, inv));
                if (!covers(d2, r)) continue;
                const Fragment a = shade_snow_scaled(d2, r, ma), b = shade_snow_reciprocal(d2, r, inv_r, ma);
                differ += bits(a.r) != bits(b.r) || bits(a.g) != bits(b.g) || bits(a.b) != bits(b.b) ||
                          bits(a.alpha) != bits(b.alpha);
                ++covered;
            }
    }
    std::printf("%s frame %d: %lld of %lld covered pixels' fragments differ (%lld flakes divide)\n", name, frame,
                differ, covered, refused);
}

}  // namespace

int main() {
    small_precisions();
    whole_binades();
    random_pairs();
    scene_fragments("snowsingle", 0);
    for (int frame : {0, 150, 300}) scene_fragments("snow", frame);
}
