#include "scenes/glibc_rand.h"

namespace cr {

// glibc seeds r[0..30] with a Lehmer generator (16807 * r mod 2^31-1, computed
// with Schrage's method), copies r[0..2] to r[31..33], then discards the first
// 310 outputs of r[i] = r[i-31] + r[i-3]. rand() returns r[i] >> 1.
void GlibcRand::seed_with(uint32_t seed) {
    int32_t r[34];
    r[0] = seed == 0 ? 1 : static_cast<int32_t>(seed);
    for (int i = 1; i < 31; ++i) {
        const int32_t hi = r[i - 1] / 127773;
        const int32_t lo = r[i - 1] % 127773;
        int32_t word = 16807 * lo - 2836 * hi;
        if (word < 0) word += 2147483647;
        r[i] = word;
    }
    for (int i = 31; i < 34; ++i) r[i] = r[i - 31];
    for (int i = 0; i < 34; ++i) state_[i] = static_cast<uint32_t>(r[i]);
    pos_ = 0;
    for (int i = 34; i < 344; ++i) next();
}

int32_t GlibcRand::next() {
    // state_ is a ring of the last 34 values; state_[pos_] is r[i-34].
    // r[i] = r[i-31] + r[i-3]  (mod 2^32)
    const uint32_t v = state_[(pos_ + 3) % 34] + state_[(pos_ + 31) % 34];
    state_[pos_] = v;
    pos_ = (pos_ + 1) % 34;
    return static_cast<int32_t>(v >> 1);
}

}  // namespace cr
