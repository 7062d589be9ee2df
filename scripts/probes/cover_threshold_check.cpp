// Checks a per-column coverage threshold, the groundwork of a possible
// change to the shading loop (docs/PERFORMANCE.md, "The next lever for
// rand10k: one compare a pixel"): instead of d2 = RN(dx2 + dy2) and
// d2 <= r2 for every pixel (an add and a compare), a column's pixels could
// compare dy2 <= t once t = cover_threshold(dx2, r2) is known for the
// (circle, column) pair. The claim, for every float dx2, r2 and every
// float dy2 >= 0 (dx2, dy2 >= 0 are squares; r2 = r * r):
//
//   RN(dx2 + dy2) <= r2   exactly when   dy2 <= cover_threshold(dx2, r2)
//
// Why it holds (RN: round to nearest, ties to even; s = the spacing of
// floats just above r2):
// * RN(x) <= r2 exactly when x < m = r2 + s/2, or x == m and r2's last
//   significand bit is 0 (the tie goes to the even neighbour). m has at
//   most 25 significant bits, so it is a double, and never a float.
// * So the floats dy2 that pass are those with dy2 < m - dx2 (or == for an
//   even r2): t is the largest float below w = m - dx2 (at w itself when w
//   is a float and r2 is even).
// * w is computed in double. Where dx2 is within 2^28 of m's size the
//   difference is exact (at most 25 + 28 bits). Where dx2 is smaller, w
//   lies in [r2, m] (rounding is monotone and r2, m are doubles), no float
//   lies in (r2, m), so t = r2 either way, which is right: RN(dx2 + r2) =
//   r2 for such a small dx2, and the next float up does not pass. The same
//   argument shows a rounded w is never a float, so "w is a float" means
//   it is exact and the tie rule applies.
// * r2 = +inf passes every finite sum (t = +inf); NaN in, NaN out (no
//   compare with NaN is true, as no d2 <= r2 with a NaN is).
//
// The check: random pairs over every binade that squares of normalized
// coordinates reach and far beyond, pairs near ties (dx2 + dy2 == m built
// on purpose), powers of two (the spacing changes there), subnormals,
// zeros, infinities and NaN; for each, dy2 at t and the 8 floats on either
// side of it, and random dy2. Every case compares the rule with the
// direct RN(dx2 + dy2) <= r2 (the host, no FMA contraction).
//
// Build and run (from the project root; no GPU):
//   g++ -O2 -ffp-contract=off -std=c++17 scripts/probes/cover_threshold_check.cpp -o /tmp/cover_threshold_check
//   /tmp/cover_threshold_check
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <limits>
#include <random>

namespace {

float bits_to_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint32_t float_to_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

/// The largest float <= w (w a double; -inf below -FLT_MAX).
float round_down_to_float(double w) {
    float f = static_cast<float>(w);  // to nearest
    if (static_cast<double>(f) > w) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
}

/// The candidate: the largest float t with RN(dx2 + t) <= r2 (see the file
/// comment), for dx2 >= 0 and r2 >= 0 or either of them inf or NaN.
float cover_threshold(float dx2, float r2) {
    if (std::isnan(dx2) || std::isnan(r2)) return std::numeric_limits<float>::quiet_NaN();
    if (std::isinf(r2)) return std::numeric_limits<float>::infinity();  // every sum passes, RN(inf + y) = inf too
    int e = 0;
    std::frexp(r2, &e);                                 // r2 = f * 2^e, f in [0.5, 1)
    const int spacing_exp = r2 == 0.f ? -149 : std::max(e - 24, -149);  // spacing above r2 (subnormals, 0: 2^-149)
    const double m = static_cast<double>(r2) + std::ldexp(1.0, spacing_exp - 1);
    const double w = m - static_cast<double>(dx2);
    const float t = round_down_to_float(w);
    if (static_cast<double>(t) == w) {                  // w is a float: dx2 + t == m exactly, a tie
        const bool even = (float_to_bits(r2) & 1u) == 0;
        return even ? t : std::nextafter(t, -std::numeric_limits<float>::infinity());
    }
    return t;
}

/// The rule the kernels use today (the host adds without contraction).
bool covered_direct(float dx2, float dy2, float r2) {
    volatile float d2 = dx2 + dy2;  // one rounding, kept out of any fused form
    return d2 <= r2;
}

struct Tally {
    unsigned long long cases = 0, wrong = 0;
    void check(float dx2, float dy2, float r2) {
        ++cases;
        const bool want = covered_direct(dx2, dy2, r2);
        const bool got = dy2 <= cover_threshold(dx2, r2);
        if (want != got && ++wrong <= 10)
            std::printf("MISMATCH dx2=%a dy2=%a r2=%a direct=%d threshold=%d (t=%a)\n", dx2, dy2, r2, want, got,
                        cover_threshold(dx2, r2));
    }
    /// dy2 at the threshold and 8 floats on either side (those >= 0).
    void around(float dx2, float r2) {
        float t = cover_threshold(dx2, r2);
        if (std::isnan(t)) {
            check(dx2, 0.f, r2);
            return;
        }
        if (std::isinf(t) || t < 0.f) t = t < 0.f ? 0.f : std::numeric_limits<float>::max();
        float lo = t;
        for (int k = 0; k < 8 && lo > 0.f; ++k) lo = std::nextafter(lo, 0.f);
        for (float y = lo; ; y = std::nextafter(y, std::numeric_limits<float>::infinity())) {
            check(dx2, y, r2);
            if (y >= t && float_to_bits(y) - float_to_bits(t) >= 8) break;
            if (std::isinf(y)) break;
        }
    }
};

}  // namespace

int main() {
    Tally tally;
    std::mt19937_64 rng(20261205);
    const auto random_float = [&](int emin, int emax) {  // uniform in exponent, random significand
        std::uniform_int_distribution<int> ex(emin, emax);
        std::uniform_int_distribution<uint32_t> sig(0, (1u << 23) - 1);
        return std::ldexp(1.f + static_cast<float>(sig(rng)) / 8388608.f, ex(rng));
    };
    // 1. random pairs: normalized squares (2^-40 .. 1) and far beyond
    for (int i = 0; i < 2000000; ++i) {
        const float r2 = random_float(-40, 2), dx2 = random_float(-60, 2);
        tally.around(dx2, r2);
        tally.check(dx2, random_float(-60, 2), r2);
    }
    for (int i = 0; i < 300000; ++i) tally.around(random_float(-149, 127), random_float(-149, 127));
    // 2. ties on purpose: dy2 = m - dx2 exactly, for dx2 near r2's size (an exact double)
    for (int i = 0; i < 1000000; ++i) {
        const float r2 = random_float(-30, 1);
        int e = 0;
        std::frexp(r2, &e);
        const double m = static_cast<double>(r2) + std::ldexp(1.0, e - 25);
        const float dx2 = static_cast<float>(m * std::uniform_real_distribution<double>(0.0, 1.0)(rng));
        const double y = m - static_cast<double>(dx2);
        if (static_cast<double>(static_cast<float>(y)) == y) tally.check(dx2, static_cast<float>(y), r2);
        tally.around(dx2, r2);
    }
    // 3. edges: powers of two, their neighbours, subnormals, zeros, the largest floats, inf, NaN
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    float edges[] = {0.f, bits_to_float(1), bits_to_float(2), bits_to_float(0x7fffff), bits_to_float(0x800000),
                     std::numeric_limits<float>::max(), inf, nan, 1.f, 0.25f, 2.f, 0x1p-20f, 0x1p-126f};
    for (float a : edges)
        for (float b : edges)
            for (int da = -2; da <= 2; ++da)
                for (int db = -2; db <= 2; ++db) {
                    const uint32_t ua = float_to_bits(a), ub = float_to_bits(b);
                    if ((da < 0 && ua < 2u) || (db < 0 && ub < 2u) || std::isnan(a) || std::isnan(b)) {
                        tally.around(a, b);
                        continue;
                    }
                    const float x = bits_to_float(ua + da), r = bits_to_float(ub + db);
                    if (x < 0.f || r < 0.f || std::isnan(x) || std::isnan(r)) continue;
                    tally.around(x, r);
                    for (float y : edges) if (!(y < 0.f)) tally.check(x, y, r);
                }
    // 4. every dx2 of a few r2 (all 2^23 significands of three binades of dx2 below r2)
    for (float r2 : {0x1.6p-8f, 0x1p-10f, 0x1.fffffep-3f})
        for (int e = -3; e <= -1; ++e)
            for (uint32_t s = 0; s < (1u << 23); s += 1)
                tally.around(std::ldexp(1.f + static_cast<float>(s) / 8388608.f, std::ilogb(r2) + e), r2);
    std::printf("cover_threshold: %llu cases, %llu mismatches\n", tally.cases, tally.wrong);
    return tally.wrong == 0 ? 0 : 1;
}
