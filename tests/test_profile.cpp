// `render profile` on recorded Nsight Compute output (tests/data/ncu/, from an
// H200 with ncu 2025.3; no GPU needed): parsing, stage names, findings,
// the comparison and JSON.
#include <gtest/gtest.h>

#include <string>

#include "render/profile.h"

#include "tests/file_checks.h"

namespace cr {
namespace {

/// The text of tests/data/ncu/NAME.
std::string recorded(const std::string& name) {
    return testing_files::slurp(std::string(CR_TEST_DATA_DIR) + "/ncu/" + name);
}

ProfileTable tiled() {
    ProfileTable t = parse_ncu_csv(recorded("tiled_rand100k_h200.csv"));
    name_stages(t);
    return t;
}

TEST(Profile, ParsesEveryLaunchWithUnits) {
    const ProfileTable t = tiled();
    EXPECT_EQ(t.device, "NVIDIA H200");
    ASSERT_EQ(t.rows.size(), 26u);  // warm-up and frame 0, 13 launches each
    const KernelProfile& shade = t.rows[12];
    EXPECT_EQ(shade.kernel, "shade_tiles_kernel");
    EXPECT_DOUBLE_EQ(shade.duration_us, 604.192);  // 604,192 ns
    EXPECT_DOUBLE_EQ(shade.sm_pct, 84.59);
    EXPECT_DOUBLE_EQ(shade.dram_pct, 1.55);
    EXPECT_DOUBLE_EQ(shade.occupancy_pct, 37.99);
    EXPECT_DOUBLE_EQ(shade.theoretical_pct, 43.75);
    EXPECT_EQ(shade.registers > 0, true);
    EXPECT_EQ(shade.shared_bytes, 3080);
    EXPECT_EQ(shade.block_size, 64);
    EXPECT_EQ(shade.grid_size, 4096);
    EXPECT_DOUBLE_EQ(shade.threads_per_instruction, 31.34);
    EXPECT_GT(shade.shared_conflicts_per_request, 0.0);
    const KernelProfile& clear = t.rows[0];
    EXPECT_DOUBLE_EQ(clear.duration_us, 5.76);
    EXPECT_DOUBLE_EQ(clear.ld_sectors_per_request, -1);  // no global loads: not measured, not 0/0
}

TEST(Profile, NamesOurStages) {
    const ProfileTable t = tiled();
    const std::vector<std::string> want = {"clear",    "bin.pack", "bin.count", "bin.scan",  "bin.scan",
                                           "bin.scan", "bin.fill", "bin.sort",  "bin.sort",  "bin.sort",
                                           "bin.sort", "bin.ranges", "shade"};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.rows[i].stage, want[i]) << i << " " << t.rows[i].kernel;
}

/// name_stages over a table of the given kernel names; expects `want`, stage by stage.
void expect_stage_names(const std::vector<const char*>& kernels, const std::vector<std::string>& want) {
    ProfileTable t;
    for (const char* k : kernels) {
        KernelProfile p;
        p.kernel = k;
        t.rows.push_back(p);
    }
    name_stages(t);
    ASSERT_EQ(t.rows.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.rows[i].stage, want[i]) << t.rows[i].kernel;
}

TEST(Profile, NamesTheTwoLevelBinningStages) {
    expect_stage_names({"void cr::<unnamed>::bin_compact_kernel(cr::DeviceCircles, ...)",
                        "void cr::<unnamed>::bin_prepare_kernel(const unsigned long long *, ...)",
                        "void cr::<unnamed>::bin_split_kernel<4>(cr::DeviceCircles, ...)",
                        "void cr::<unnamed>::shade_ftb_kernel<false, 1>(cr::DeviceCircles, ...)"},
                       {"bin.compact", "bin.fill", "bin.split", "shade"});
}

TEST(Profile, NamesTheCountingSortStages) {
    expect_stage_names({"void cr::<unnamed>::bin_count_kernel(cr::DeviceCircles, cr::TileGrid, long, ...)",
                        "void cr::<unnamed>::chunk_prefix_kernel(const unsigned int *, int, int, ...)",
                        "void cr::<unnamed>::count_total_kernel(int, const unsigned long long *, ...)",
                        "void cr::<unnamed>::bin_place_kernel(long, const uint2 *, cr::TileGrid, ...)"},
                       {"bin.count", "bin.scan", "bin.scan", "bin.place"});
}

TEST(Profile, NamesTheTileOrderStage) {
    // bin.order: one block's sort up to 4096 tiles; beyond, the loads and CUB's device sort
    expect_stage_names({"void cr::<unnamed>::tile_order_kernel(cr::TileLists, cr::TileGrid, int *)",
                        "void cr::<unnamed>::tile_loads_kernel(cr::TileLists, cr::TileGrid, unsigned int *, int *)",
                        "void cub::CUB_200800_SM_900_NS::DeviceRadixSortOnesweepKernel<...>(...)"},
                       {"bin.order", "bin.order", "bin.order"});
    // the early stop's recorded order, then its shading
    expect_stage_names({"void cr::<unnamed>::recorded_order_kernel(const unsigned int *, int, int *)",
                        "void cr::<unnamed>::shade_tiles_kernel<16, 4, false, false, 40>(cr::DeviceCircles, ...)"},
                       {"bin.order", "shade"});
}

TEST(Profile, FindingsFromTheNumbers) {
    const std::vector<std::string> f = profile_findings(tiled());
    std::string all;
    for (const auto& line : f) all += line + "\n";
    EXPECT_NE(all.find("shade (shade_tiles_kernel) is compute-bound: SM throughput 83% of peak, DRAM 1.5%"),
              std::string::npos) << all;
    EXPECT_NE(all.find("shade dominates the frame: 77% of the profiled GPU time"), std::string::npos) << all;
    EXPECT_EQ(all.find("SM throughput 85%"), std::string::npos) << "the warm-up's launch repeated: " << all;
    EXPECT_NE(all.find("theoretical occupancy 44%, limited by registers"), std::string::npos) << all;
}

TEST(Profile, NaiveIsComputeBoundAndUnorderedHasNoFindingsAboutSorting) {
    ProfileTable n = parse_ncu_csv(recorded("naive_rand10k_512_h200.csv"));
    name_stages(n);
    EXPECT_EQ(n.rows.back().stage, "shade");
    std::string all;
    for (const auto& line : profile_findings(n)) all += line + "\n";
    EXPECT_NE(all.find("shade (shade_naive_kernel) is compute-bound"), std::string::npos) << all;
    ProfileTable u = parse_ncu_csv(recorded("unordered_rgb_256_h200.csv"));
    name_stages(u);
    EXPECT_EQ(u.rows.size(), 6u);
    EXPECT_EQ(u.rows[2].kernel, "shade_unordered_kernel");
}

TEST(Profile, CompareShowsBeforeAndAfter) {
    const ProfileTable before = tiled();
    ProfileTable after = before;
    after.rows[12].duration_us = 302.096;
    const std::string text = format_profile_compare(before, after);
    EXPECT_NE(text.find("604.19 -> 302.10 (-50%)"), std::string::npos) << text;
}

TEST(Profile, CompareMatchesAReplacedKernelByStage) {
    const ProfileTable before = tiled();
    ProfileTable after = before;
    after.rows[6].kernel = "bin_fill_per_thread_kernel";  // the fill stage, another kernel
    after.rows[6].duration_us = 211.55;
    const std::string text = format_profile_compare(before, after);
    EXPECT_NE(text.find("25.09 -> 211.55 (+743%)"), std::string::npos) << text;
}

TEST(Profile, JsonRoundTrip) {
    const ProfileTable t = tiled();
    const ProfileTable back = profile_from_json(profile_to_json(t, "tiled rand100k"));
    ASSERT_EQ(back.rows.size(), t.rows.size());
    EXPECT_EQ(back.rows[12].stage, "shade");
    EXPECT_DOUBLE_EQ(back.rows[12].sm_pct, 84.59);
    EXPECT_EQ(back.device, "NVIDIA H200");
    EXPECT_THROW(profile_from_json("{\"results\": []}"), std::invalid_argument);
    EXPECT_THROW(profile_from_json("not json"), std::invalid_argument);
}

TEST(Profile, NoKernelIsAnError) { EXPECT_THROW(parse_ncu_csv("Renderer: cpu\nTotal: 1 ms\n"), std::runtime_error); }

TEST(Profile, MissingNcuSaysSo) {
    setenv("CR_NCU", "/nonexistent/ncu", 1);
    try {
        run_profiler({"/bin/true"}, 10);
        FAIL() << "ran without ncu";
    } catch (const ProfilerUnavailable& e) {
        EXPECT_NE(std::string(e.what()).find("Nsight Compute (ncu) was not found"), std::string::npos) << e.what();
    }
    unsetenv("CR_NCU");
}

TEST(Profile, CounterPermissionIsExplained) {
    // A stand-in ncu that answers as a desktop without profiling rights does.
    const std::string fake = std::string(CR_TEST_DATA_DIR) + "/ncu/fake_ncu_no_permission.sh";
    setenv("CR_NCU", fake.c_str(), 1);
    try {
        run_profiler({"/bin/true"}, 10);
        FAIL() << "no error";
    } catch (const ProfilerUnavailable& e) {
        EXPECT_NE(std::string(e.what()).find("ERR_NVGPUCTRPERM"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << e.what();
    }
    unsetenv("CR_NCU");
}

}  // namespace
}  // namespace cr
