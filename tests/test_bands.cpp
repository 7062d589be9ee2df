// Banded passes over large images (render/core/bands.h) and the comparison
// and conversion that use them: the same results as one pass.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "render/compare.h"
#include "render/core/bands.h"
#include "render/image_io.h"

namespace {

using namespace cr;

TEST(Bands, CoverTheRangeOnceInOrder) {
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(10), size_t(1001)})
        for (int bands : {0, 1, 2, 4, 5, 16}) {
            std::vector<std::atomic<int>> seen(n);
            std::vector<std::pair<size_t, size_t>> ranges(17, {0, 0});
            std::atomic<int> calls{0};
            for_bands(n, bands, [&](size_t b, size_t e) {
                ASSERT_LT(b, e);
                for (size_t i = b; i < e; ++i) ++seen[i];
                ++calls;
            });
            for (size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i].load(), 1) << "n " << n << " bands " << bands << " i " << i;
            const int want = n == 0 ? 0 : static_cast<int>(std::min<size_t>(std::max(bands, 1), n));
            EXPECT_EQ(calls.load(), want) << "n " << n << " bands " << bands;
        }
}

TEST(Bands, AnExceptionOfAnyBandReachesTheCaller) {
    std::atomic<int> ended{0};
    EXPECT_THROW(for_bands(400, 4,
                           [&](size_t b, size_t) {
                               ++ended;
                               if (b == 300) throw std::runtime_error("band 3");
                           }),
                 std::runtime_error);
    EXPECT_EQ(ended.load(), 4) << "every band ran to its end before the rethrow";
}

TEST(Bands, BandsForBytes) {
    EXPECT_EQ(bands_for_bytes(0), 1);
    EXPECT_EQ(bands_for_bytes(size_t(4) << 20), 2);
    EXPECT_EQ(bands_for_bytes(size_t(16) << 20), 4);  // one 1024x1024 RGBA float frame
    EXPECT_EQ(bands_for_bytes(size_t(1) << 30), 4);
}

TEST(Bands, ParallelCopyEqualsMemcpy) {
    const size_t bytes = (size_t(5) << 20) + 3;  // odd: band edges fall mid-word
    std::vector<unsigned char> src(bytes), dst(bytes, 0);
    uint32_t x = 12345;
    for (unsigned char& c : src) c = static_cast<unsigned char>((x = x * 1664525u + 1013904223u) >> 24);
    parallel_copy(dst.data(), src.data(), bytes);
    EXPECT_EQ(std::memcmp(dst.data(), src.data(), bytes), 0);
}

Image gradient(int w, int h) {
    Image img(w, h);
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i) {
            float* p = img.pixel(i, j);
            p[0] = static_cast<float>(i) / w;
            p[1] = static_cast<float>(j) / h;
            p[2] = static_cast<float>((i * 7 + j * 3) % 256) / 255.f;
            p[3] = 1.f;
        }
    return img;
}

TEST(Bands, CompareAcrossFourBandsCountsEveryBand) {
    const Image ref = gradient(1024, 1024);  // 16 MB: four bands
    Image test = ref;
    // one changed pixel in each band and one on a band edge (rows 256, 512, 768 start bands)
    const int rows[] = {3, 300, 511, 512, 1023};
    for (int j : rows) test.pixel(17, j)[0] += 0.25f;
    test.pixel(900, 700)[2] = std::numeric_limits<float>::quiet_NaN();
    const CompareStats st = compare_images(test, ref);
    EXPECT_EQ(st.mismatches_strict, 6);
    EXPECT_EQ(st.mismatches_course, 6);
    EXPECT_EQ(st.max_abs_error, std::numeric_limits<double>::infinity());
    // the five finite errors, each exactly the float difference at that pixel
    double sum = 0;
    for (int j : rows) sum += std::fabs(static_cast<double>(test.pixel(17, j)[0] - ref.pixel(17, j)[0]));
    sum += std::fabs(static_cast<double>(test.pixel(900, 700)[0] - ref.pixel(900, 700)[0]));  // 0: only B is NaN
    EXPECT_NEAR(st.mean_abs_error, sum / (3.0 * 1024 * 1024), 1e-15);
    EXPECT_FALSE(st.pass);
}

TEST(Bands, ConversionIntoABufferEqualsTheOneThatReturnsIt) {
    Image img = gradient(1000, 600);
    img.pixel(0, 0)[0] = -1.f;  // clamps
    img.pixel(999, 599)[1] = 7.f;
    std::vector<uint8_t> out;
    to_rgb8_top_down(img, true, out);
    const std::vector<uint8_t> want = to_rgb8_top_down(img, true);
    ASSERT_EQ(out, want);
    EXPECT_EQ(out[size_t(599) * 1000 * 4 + 0], 0);   // image row 0 is the last output row
    EXPECT_EQ(out[size_t(999) * 4 + 1], 255);        // image row 599 is the first
    const uint8_t* kept = out.data();
    to_rgb8_top_down(img, true, out);
    EXPECT_EQ(out.data(), kept) << "a buffer of the right size is reused";
    EXPECT_EQ(out, want);
}

}  // namespace
