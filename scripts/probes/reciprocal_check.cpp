// Checks div_by_reciprocal (render/core/hd_math.h) against the IEEE
// division on the CPU, far past what the unit tests run (issue 30, the
// exact snow shading's division; no GPU needed):
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
    whole_binades();
    random_pairs();
    scene_fragments("snowsingle", 0);
    for (int frame : {0, 150, 300}) scene_fragments("snow", frame);
}
