// The GNU C library's rand(), reimplemented so that scenes are identical on
// every platform (SCENES.md, "Random numbers").
#pragma once

#include <cstdint>

namespace cr {

/// glibc's default random(): the TYPE_3 additive feedback generator
/// (degree 31, separation 3), seeded the way srand() seeds it.
/// Source of the algorithm: glibc stdlib/random_r.c (srandom_r, random_r).
class GlibcRand {
public:
    static constexpr int32_t kRandMax = 2147483647;

    /// Same as srand(seed); seed 0 behaves as seed 1.
    explicit GlibcRand(uint32_t seed = 1) { seed_with(seed); }

    /// Re-seeds the generator (srand).
    void seed_with(uint32_t seed);

    /// Next value in [0, RAND_MAX] (rand()).
    int32_t next();

    /// The course's randomFloat(): float(rand()) / RAND_MAX, divided in float.
    float next_float() { return static_cast<float>(next()) / static_cast<float>(kRandMax); }

private:
    uint32_t state_[34];
    int pos_ = 0;  // index of the oldest of the last 34 values
};

}  // namespace cr
