// cr::GlibcRand against the test vectors of ../shared/SCENES.md ("Random numbers").
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "scenes/glibc_rand.h"

namespace {

std::vector<int32_t> first_n(uint32_t seed, int n) {
    cr::GlibcRand g(seed);
    std::vector<int32_t> v;
    for (int i = 0; i < n; ++i) v.push_back(g.next());
    return v;
}

TEST(GlibcRand, Seed1FirstFive) {
    EXPECT_EQ(first_n(1, 5),
              (std::vector<int32_t>{1804289383, 846930886, 1681692777, 1714636915, 1957747793}));
}

TEST(GlibcRand, Seed0BehavesAsSeed1) {
    EXPECT_EQ(first_n(0, 5),
              (std::vector<int32_t>{1804289383, 846930886, 1681692777, 1714636915, 1957747793}));
    EXPECT_EQ(first_n(0, 200), first_n(1, 200));
}

TEST(GlibcRand, Seed7FirstFive) {
    EXPECT_EQ(first_n(7, 5), (std::vector<int32_t>{1045618677, 1863967299, 1272579899, 461085871, 21961325}));
}

TEST(GlibcRand, Seed12345FirstFive) {
    EXPECT_EQ(first_n(12345, 5),
              (std::vector<int32_t>{383100999, 858300821, 357768173, 455528251, 133005921}));
}

TEST(GlibcRand, Seed0ThousandthValue) {
    const auto v = first_n(0, 1000);
    EXPECT_EQ(v[999], 1143565421);
}

TEST(GlibcRand, ValuesStayWithinRandMax) {
    cr::GlibcRand g(42);
    for (int i = 0; i < 100000; ++i) {
        const int32_t v = g.next();
        ASSERT_GE(v, 0);
        ASSERT_LE(v, cr::GlibcRand::kRandMax);
    }
}

TEST(GlibcRand, FirstRandomFloatAfterSeed7) {
    cr::GlibcRand g(7);
    const float f = g.next_float();
    EXPECT_EQ(f, 0.486904144f);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
    EXPECT_STREQ(buf, "0.486904144");
    // randomFloat() divides in float: float(1045618677) / float(RAND_MAX).
    EXPECT_EQ(f, static_cast<float>(1045618677) / static_cast<float>(2147483647));
}

TEST(GlibcRand, ReseedRestartsTheSequence) {
    cr::GlibcRand g(7);
    for (int i = 0; i < 37; ++i) g.next();
    g.seed_with(12345);
    EXPECT_EQ(g.next(), 383100999);
    EXPECT_EQ(g.next(), 858300821);
}

}  // namespace
