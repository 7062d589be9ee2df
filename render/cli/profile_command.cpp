// `render profile`: runs this program again under Nsight Compute on one
// scene and renderer (ours, or the student's through its worker process),
// profiling only the counted frames (cudaProfilerStart/Stop around them),
// then prints a row per kernel launch, the findings, and a comparison with
// an earlier --json result (render/profile.h).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "render/cli/commands.h"
#include "render/core/output_file.h"
#include "render/options.h"
#include "render/profile.h"
#include "render/student/student_build.h"

namespace cr {

namespace {

/// The command line of the profiled run (render itself, with --profile-range).
std::vector<std::string> profiled_run(const RenderArgs& r, const std::string& renderer, const char* argv0) {
    std::vector<std::string> argv = {self_executable(argv0)};
    if (!r.scene_file.empty()) argv.insert(argv.end(), {"--scene-file", r.scene_file});
    else argv.insert(argv.end(), {"--scene", r.scene});
    if (renderer == "student") argv.insert(argv.end(), {"--student", r.student_dir});
    else argv.insert(argv.end(), {"-r", renderer});
    argv.insert(argv.end(), {"--size", r.size, "--seed", r.seed, "--frames", r.frames, "--profile-range"});
    return argv;
}

/// Checks the options before ncu starts (the scene, size, seed and frames
/// as `render` checks them, then profile's own); returns the renderer's name
/// and sets `timeout_s`.
std::string validate_profile(RenderArgs& r, const ProfileArgs& a, int& timeout_s) {
    if (r.scene.empty() && r.scene_file.empty()) r.scene = "rand100k";
    const RenderPlan plan = plan_render(r);
    const std::string renderer = canonical_renderer_name(plan.renderer.empty() ? "tiled" : plan.renderer);
    if (renderer == "cpu" || renderer == "cpuref")
        throw std::invalid_argument("renderer '" + renderer + "' runs no GPU kernel: profile naive, tiled, persistent, "
                                    "unordered, or your renderer with --student DIR");
    timeout_s = parse_whole_number(a.timeout, "--timeout", 1, 3600, "use whole seconds, 1..3600");
    if (!a.json_path.empty()) check_writable(a.json_path);
    return renderer;
}

ProfileTable read_profile_json(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::invalid_argument("cannot read --compare file '" + path + "'");
    std::ostringstream s;
    s << f.rdbuf();
    try {
        return profile_from_json(s.str());
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("--compare file '" + path + "': " + e.what());
    }
}

void print_profile(std::FILE* out, const ProfileTable& t, const std::string& what) {
    std::fprintf(out, "render profile: %s on %s (Nsight Compute; one row per kernel launch)\n", what.c_str(),
                 t.device.empty() ? "the GPU" : t.device.c_str());
    std::fputs(format_profile(t).c_str(), out);
    std::fprintf(out, "\ntime: GPU time of the launch; SM%%/DRAM%%: throughput, %% of peak; occ%%: achieved occupancy "
                      "(theoretical); ld/st s/r: 32-byte sectors per global load/store request (4 = 32 consecutive "
                      "floats); bank/r: shared-memory bank conflicts per shared load/store; thr/i: active threads per "
                      "warp instruction (32 = no divergence); docs/PROFILING.md explains each\n\nFindings:\n");
    for (const auto& f : profile_findings(t)) std::fprintf(out, "  - %s\n", f.c_str());
}

}  // namespace

int run_profile(const ProfileArgs& a, const char* argv0) {
    RenderArgs r = a.render;
    int timeout_s = 0;
    const std::string renderer = validate_profile(r, a, timeout_s);
    const ProfileTable old = a.compare_path.empty() ? ProfileTable{} : read_profile_json(a.compare_path);
    require_ncu();  // before any build: say plainly that ncu is missing
    if (renderer == "student") {  // compile errors here, plainly, not inside the profiled run
        student::BuildOptions o;
        o.dir = r.student_dir;
        student::build_student(o);
    } else if (const std::string why = renderer_unavailable(renderer); !why.empty()) {
        throw NoCudaDeviceError(why);
    }
    std::FILE* out = report_stream({a.json_path});
    const std::string what = (r.scene_file.empty() ? r.scene : r.scene_file) + ", " + renderer + ", " + r.size +
                             ", frames " + r.frames;
    std::fprintf(stderr, "profiling %s under Nsight Compute (each kernel is replayed per metric group: this takes a while) ...\n",
                 what.c_str());
    const ProfileTable t = run_profiler(profiled_run(r, renderer, argv0), timeout_s);
    print_profile(out, t, what);
    if (!a.compare_path.empty())
        std::fprintf(out, "\nCompared with %s:\n%s", a.compare_path.c_str(), format_profile_compare(old, t).c_str());
    if (!a.json_path.empty()) write_data_file(out, a.json_path, profile_to_json(t, what));
    return kExitOk;
}

}  // namespace cr
