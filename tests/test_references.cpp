// cpuref against the stored reference images (reference_images/, written by
// `render refs`): every 8-bit byte must be equal. Built twice: unit_tests
// checks the 256x256 set; reference_tests_1024 (label `slow`, about a minute
// on 2 cores) checks the 1024x1024 set.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "render/cpu/cpu_stages.h"
#include "render/image_io.h"
#include "render/reference_set.h"
#include "scenes/scene.h"

namespace cr {
// Readable parameter names in test output and in ctest's test list.
void PrintTo(const ReferenceSpec& spec, std::ostream* os) { *os << spec.file_name(); }
}  // namespace cr

namespace {

const std::string kDir = std::string(CR_SOURCE_DIR) + "/reference_images/";

TEST(ReferenceSet, SmallSetEntries) {
    const auto set = cr::reference_set(true);
    ASSERT_EQ(set.size(), 18u);  // 14 scenes, 4 with two frames
    for (const auto& s : set) {
        EXPECT_EQ(s.width, 256);
        EXPECT_EQ(s.height, 256);
        EXPECT_EQ(s.seed, 0u);
        EXPECT_TRUE(cr::is_scene_name(s.scene)) << s.scene;
    }
    EXPECT_EQ(set[0].file_name(), "rgb_256x256_s0_f0000.png");
    EXPECT_EQ(cr::reference_set(false).size(), 36u);
    const cr::ReferenceSpec snow{"snow", 256, 256, 0, 300};
    EXPECT_EQ(snow.file_name(), "snow_256x256_s0_f0300.png");
}

class StoredReference : public ::testing::TestWithParam<cr::ReferenceSpec> {};

TEST_P(StoredReference, CpurefMatchesEveryByte) {
    const cr::ReferenceSpec spec = GetParam();
    const std::string path = kDir + spec.file_name();
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0) << "missing " << path << " (run: render refs --small-only)";

    // Frame f is the image after f + 1 advance steps (frame 0 already had one).
    // render() does not change the scene, so only the last frame is drawn.
    cr::CpuRefRenderer ref;
    ref.setup(cr::make_scene(spec.scene, spec.seed), spec.width, spec.height);
    for (int f = 0; f <= spec.frame; ++f) ref.advance();
    ref.clear();
    ref.render();
    ASSERT_EQ(ref.frame(), spec.frame + 1);
    const std::vector<uint8_t> mine = cr::to_rgb8_top_down(ref.image());

    const cr::Image stored = cr::read_image(path);
    ASSERT_EQ(stored.width, spec.width);
    ASSERT_EQ(stored.height, spec.height);
    std::vector<uint8_t> theirs;
    theirs.reserve(mine.size());
    for (int j = stored.height - 1; j >= 0; --j)
        for (int i = 0; i < stored.width; ++i)
            for (int c = 0; c < 3; ++c)
                theirs.push_back(static_cast<uint8_t>(std::lround(stored.pixel(i, j)[c] * 255.f)));
    ASSERT_EQ(mine.size(), theirs.size());
    long long differ = 0;
    size_t first = mine.size();
    for (size_t k = 0; k < mine.size(); ++k)
        if (mine[k] != theirs[k]) {
            ++differ;
            if (first == mine.size()) first = k;
        }
    EXPECT_EQ(differ, 0) << spec.file_name() << ": first difference at byte " << first << " (pixel "
                         << first / 3 % spec.width << ", row from top " << first / 3 / spec.width
                         << "): " << (first < mine.size() ? int(mine[first]) : -1) << " vs stored "
                         << (first < mine.size() ? int(theirs[first]) : -1);
    // The picture is not blank (white or the snow background everywhere).
    size_t distinct = 0;
    for (size_t k = 3; k < mine.size(); k += 3) distinct += mine[k] != mine[0] || mine[k + 2] != mine[2];
    EXPECT_GT(distinct, 0u) << spec.file_name() << " is uniform";
}

std::string spec_name(const ::testing::TestParamInfo<cr::ReferenceSpec>& info) {
    return info.param.scene + "_f" + std::to_string(info.param.frame);
}

#ifdef CR_LARGE_REFERENCES
// The 1024x1024 set (test executable reference_tests_1024, ctest label `slow`).
std::vector<cr::ReferenceSpec> large_set() {
    std::vector<cr::ReferenceSpec> out;
    for (const auto& s : cr::reference_set(false))
        if (s.width == 1024) out.push_back(s);
    return out;
}
INSTANTIATE_TEST_SUITE_P(Large, StoredReference, ::testing::ValuesIn(large_set()), spec_name);
#else
INSTANTIATE_TEST_SUITE_P(Small, StoredReference, ::testing::ValuesIn(cr::reference_set(true)), spec_name);
#endif

}  // namespace
