// `render`: the headless command. Renders a course scene with any renderer,
// prints per-stage times, writes images, checks against cpuref and the
// stored reference images; `render bench` compares kernels; `render refs`
// regenerates reference_images/. See README.md for usage. This file builds
// the command line and maps errors to exit codes; render_command.cpp,
// bench.cpp and refs.cpp run the commands.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>
#include <unistd.h>

#include "render/cli/commands.h"
#include "render/core/output_file.h"
#include "render/core/text.h"
#include "render/options.h"
#include "render/profile.h"
#include "render/renderer_factory.h"
#include "render/student/sanitize.h"
#include "render/student/student_build.h"

namespace cr {

std::string self_executable(const char* argv0) {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(argv0);
}

namespace {

/// `render -i`: replaces this process with the GUI on the same scene.
int launch_gui(const std::string& scene, const RenderArgs& a, const char* argv0) {
    const std::string self = self_executable(argv0);
    const std::string dir = self.substr(0, self.rfind('/'));
    std::string gui = dir + "/app/circle-renderer";
    if (access(gui.c_str(), X_OK) != 0) gui = dir + "/circle-renderer";
    if (access(gui.c_str(), X_OK) != 0)
        throw std::invalid_argument("-i needs the GUI application 'circle-renderer', which was not built "
                                    "(install libglfw3-dev libimgui-dev python3-glad and rebuild)");
    std::vector<std::string> args = {gui, "--size", a.size, "--seed", a.seed};
    if (!a.scene_file.empty()) args.insert(args.end(), {"--scene-file", a.scene_file});
    else if (!scene.empty()) args.insert(args.end(), {"--scene", scene});
    if (!a.particles.empty()) args.insert(args.end(), {"--particles", a.particles});
    if (!a.renderer.empty() && a.renderer != "student") args.insert(args.end(), {"--renderer", a.renderer});
    if (!a.student_dir.empty()) args.insert(args.end(), {"--student", a.student_dir});
    std::vector<char*> cargs;
    for (auto& s : args) cargs.push_back(s.data());
    cargs.push_back(nullptr);
    execv(gui.c_str(), cargs.data());
    throw std::runtime_error("cannot start " + gui);
}

/// The options of `render bench` as typed (checked by bench_args).
struct BenchText {
    std::string scenes = kDefaultBenchScenes, renderers, size = "1024", frames = "0:4", seed = "0", repeat = "5";
    std::string timing = "events";
    bool no_check = false;
    /// render's --scene and -r, typed after `bench` by mistake: refused with
    /// bench's names for them (CLI11 alone would list them as unexpected)
    std::vector<std::string> scene_by_mistake, renderer_by_mistake;
};

/// Everything the command line can hold, filled by CLI11.
struct CommandLine {
    RenderArgs render;
    BenchText bench_text;
    BenchArgs bench;
    RefsArgs refs;
    GradeArgs grade;
    ProfileArgs profile;
    CLI::App* bench_cmd = nullptr;
    CLI::App* refs_cmd = nullptr;
    CLI::App* coalescence_cmd = nullptr;
    CoalescenceArgs coalescence;
    CLI::App* grade_cmd = nullptr;
    CLI::App* profile_cmd = nullptr;
    CLI::Option* renderer_opt = nullptr;
    CLI::Option* file_opt = nullptr;
    CLI::Option* sanitize_opt = nullptr;
    CLI::Option* slurm_opt = nullptr;
};

void add_render_options(CLI::App& app, CommandLine& c) {
    RenderArgs& a = c.render;
    app.add_option("scene_name", a.scene_pos, "Scene name (course form; same as --scene)");
    app.add_option("--scene", a.scene, "Scene: rgb rgby rand10k rand100k rand1M biglittle littlebig pattern micro2M "
                                       "bouncingballs fireworks hypnosis snow snowsingle rand10M");
    app.add_option("--scene-file", a.scene_file, "Load circles from a scene file, or a .par particle file (docs/SCENE_FORMAT.md)");
    app.add_option("--particles", a.particles, "snowsingle: read the flakes from this .par file instead of ./snow.par");
    c.renderer_opt = app.add_option("-r,--renderer", a.renderer,
                                    renderer_names_help() + "; default: tiled with a GPU, else cpu");
    app.add_option("-s,--size", a.size, "Image size N (NxN) or WxH, each 1..16384 (default 1024)");
    app.add_option("-S,--seed", a.seed, "Random seed of the random scenes (default 0)");
    app.add_option("-b,--frames,--bench", a.frames,
                   "Frames START:END: all of 0..END-1 are rendered, START..END-1 are timed and written "
                   "(default 0:1; a single N means N:N+1)");
    c.file_opt = app.add_option("-f,--file", a.file_prefix, "Write PREFIX_0000.png ... for the timed frames");
    app.add_option("--format", a.format, "Image format of --file: png (default) or ppm");
    app.add_flag("-c,--check", a.check, "Compare the last frame with cpuref (live) and the stored reference image");
    app.add_option("--tolerance", a.tolerance, "Rule deciding PASS: strict (1e-4, default), course (0.1) or a number");
    app.add_option("--diff", a.diff_path, "Write a heat map of the difference to cpuref (PNG; - for standard output)");
    app.add_option("--json", a.json_path, "Write the timings (and check results) as JSON (- for standard output; "
                                          "the report then goes to stderr)");
    app.add_option("--reference-dir", a.reference_dir, "Folder of stored reference images");
    app.add_flag("-i,--interactive", a.interactive, "Open the GUI application on this scene");
    app.add_option("--student", a.student_dir, "Build and run YOUR renderer: the course's render/ folder with your "
                                               "cudaRenderer.cu and .h (renderer 'student'; docs/STUDENTS.md)");
    app.add_flag("--build-only", a.build_only, "With --student: only build your renderer and say where the build is");
    c.sanitize_opt = app.add_option("--sanitize", a.sanitize,
                                    "With --student: run your renderer under compute-sanitizer: memcheck (default), "
                                    "racecheck, synccheck or initcheck; each error once with your file and line")
                         ->expected(0, 1);
    app.add_option("--student-timeout", a.student_timeout, "With --student: seconds a call of your renderer may take before "
                                                           "it counts as a hang (default 30)");
    app.add_option("--student-memory", a.student_memory, "With --student: your renderer's device-memory budget in GiB "
                                                         "(default 16, at most half the GPU's)");
    app.add_option("--timing", a.timing, "events (default: cudaEvents per stage) or course (host clock around each "
                                         "call, each followed by cudaDeviceSynchronize, as the course times)");
    app.add_flag("--profile-range", a.profile_range, "(used by render profile)")->group("");
    app.add_flag("--list", a.list, "List scenes and renderers, then exit");
}

void add_bench_command(CLI::App& app, CommandLine& c) {
    BenchText& t = c.bench_text;
    c.bench_cmd = app.add_subcommand("bench", "Time the course frame per stage for scenes x renderers");
    CLI::App* bench = c.bench_cmd;
    bench->add_option("--scenes", t.scenes, std::string("Comma-separated scene names (default: ") + kDefaultBenchScenes +
                                                "; the animated scenes and rand10M only when named)");
    bench->add_option("--renderers", t.renderers,
                      "Comma-separated renderers (default: every available one except cpuref and unordered); "
                      "one that cannot run here is reported as unavailable and the exit code is 3");
    bench->add_option("--size", t.size, "Image size N or WxH (default 1024)");
    bench->add_option("--seed", t.seed, "Seed (default 0)");
    bench->add_option("--frames", t.frames, "Frames START:END timed per repeat (default 0:4)");
    bench->add_option("--repeat", t.repeat, "Repeats per scene and renderer, 1..1000 (default 5)")->type_name("K");
    bench->add_option("--json", c.bench.json_path, "Write results as JSON (- for standard output)");
    bench->add_option("--csv", c.bench.csv_path, "Write results as CSV (- for standard output)");
    bench->add_option("--compare", c.bench.compare_path, "An earlier --json result to compare with, scene by scene");
    bench->add_flag("--no-check", t.no_check, "Skip the correctness check of each result");
    bench->add_option("--student", c.bench.student_dir, "Your course render/ folder: adds renderer 'student' (timed the "
                                                         "course's way; docs/STUDENTS.md)");
    bench->add_option("--student-timeout", c.bench.student_timeout, "Seconds a call of your renderer may take (default 30)");
    bench->add_option("--student-memory", c.bench.student_memory, "Your renderer's device-memory budget in GiB (default 16)");
    bench->add_option("--scene", t.scene_by_mistake)->group("")->allow_extra_args(false);
    bench->add_option("-r,--renderer", t.renderer_by_mistake)->group("")->allow_extra_args(false);
    bench->add_option("--timing", t.timing, "How our renderers are timed: events (default) or course (as the course "
                                            "times a student's renderer, so the rows compare like with like)");
}

void add_coalescence_command(CLI::App& app, CommandLine& c) {
    CoalescenceArgs& a = c.coalescence;
    c.coalescence_cmd = app.add_subcommand(
        "coalescence", "Per scene: the blends each pixel needs before its result is certain (exact early stopping), on the CPU");
    c.coalescence_cmd->add_option("--scenes", a.scenes, "Comma-separated scenes (default: the course's scored ones, and littlebig)");
    c.coalescence_cmd->add_option("-s,--size", a.size, "Image size N or WxH (default 1024)");
    c.coalescence_cmd->add_option("-S,--seed", a.seed, "Random seed (default 0)");
    c.coalescence_cmd->add_option("--window", a.window, "Fragments of the first window from the end (default 0: from "
                                                        "each pixel's alphas)");
    c.coalescence_cmd->add_option("--json", a.json_path, "Write the figures as JSON (- for standard output)");
}

void add_refs_command(CLI::App& app, CommandLine& c) {
    c.refs.out_dir = default_reference_dir();
    c.refs_cmd = app.add_subcommand("refs", "Regenerate the stored reference images with cpuref");
    c.refs_cmd->add_option("--out", c.refs.out_dir, "Output folder, created when missing (default: the source tree's "
                                                    "reference_images/)");
    c.refs_cmd->add_flag("--small-only", c.refs.only_small, "Only the 256x256 set");
}

void add_grade_command(CLI::App& app, CommandLine& c) {
    GradeArgs& g = c.grade;
    c.grade_cmd = app.add_subcommand("grade", "Grade YOUR renderer as the course does: 8 scenes at 1024x1024, "
                                              "correctness with random seeds, time against a reference, score of 72");
    c.grade_cmd->add_option("--student", g.student_dir, "Your course render/ folder (required)");
    c.grade_cmd->add_option("--reference", g.reference, "The course's render_ref binary for T_ref (default: "
                                                        "DIR/render_ref when it runs here, else this project's tiled kernel)");
    c.grade_cmd->add_option("--seed", g.seed, "Seed of the correctness seeds (default: random, as the course)");
    c.grade_cmd->add_option("--json", g.json_path, "Write the grade as JSON (- for standard output)");
    c.grade_cmd->add_option("--scenes", g.scenes, "Grade only these of the 8 scored scenes, e.g. rgb,pattern (checked "
                                                  "and timed as in a whole grade; no other checks; default: all 8)");
    c.grade_cmd->add_option("--student-timeout", g.student_timeout, "Seconds a call of your renderer may take (default 30)");
    c.grade_cmd->add_option("--student-memory", g.student_memory, "Your renderer's device-memory budget in GiB (default 16)");
    c.grade_cmd->add_option("--class", g.class_dir, "Grade a whole class: one folder or archive (asst3.tar.gz, .zip) a "
                                                    "student in this folder (docs/INSTRUCTORS.md)");
    c.grade_cmd->add_option("--out", g.out_dir, "With --class: the results folder (per-student JSON, grades.csv, report.html)");
    c.grade_cmd->add_option("--gpus", g.gpus, "With --class: the local GPUs to use, e.g. 0,1 (default: all)");
    c.grade_cmd->add_option("--jobs", g.jobs, "With --class: builds at once (default: the CPU cores)");
    c.slurm_opt = c.grade_cmd->add_option("--slurm", g.slurm, "With --class: submit a Slurm job array instead (the "
                                                              "value: sbatch options, e.g. \"--partition=gpu\")")
                      ->expected(0, 1);
    c.grade_cmd->add_option("--slurm-gpus", g.slurm_gpus, "With --slurm: GPUs a task asks for (default 1; 0: build only)");
    c.grade_cmd->add_option("--class-task", g.class_task, "(a Slurm task: grade entry I of RESULTS/entries.json)")->group("");
    c.grade_cmd->add_option("--collect", g.collect_dir, "Make grades.csv and report.html of the Slurm tasks that finished");
    c.grade_cmd->add_option("--artifacts", g.artifacts_dir, "Write each incorrect scene's diff heat map (PNG) into this folder");
    c.grade_cmd->add_option("--ref-times", g.ref_times_path,
                            "Use T_ref from this JSON (written by --measure-reference) instead of timing the reference");
    c.grade_cmd->add_flag("--fresh-reference", g.fresh_reference,
                          "Time the reference again even when this machine measured its T_ref within the last 12 h "
                          "(kept in ~/.cache/circle-renderer/reference_times.json)");
    c.grade_cmd->add_flag("--measure-reference", g.measure_reference,
                          "Only time the reference (--reference, else this project's tiled kernel) on the 8 scenes "
                          "and write them with --json (for --ref-times)");
}

void add_profile_command(CLI::App& app, CommandLine& c) {
    ProfileArgs& p = c.profile;
    c.profile_cmd = app.add_subcommand("profile", "Profile a frame with Nsight Compute: one row per kernel launch "
                                                  "(coalescing, bank conflicts, throughput, occupancy) and findings");
    CLI::App* cmd = c.profile_cmd;
    cmd->add_option("--scene", p.render.scene, "Scene (default rand100k)");
    cmd->add_option("--scene-file", p.render.scene_file, "A scene file instead");
    cmd->add_option("-r,--renderer", p.render.renderer, "Our renderer to profile (default tiled)");
    cmd->add_option("--student", p.render.student_dir, "Profile YOUR renderer (its kernels under your names)");
    cmd->add_option("--size", p.render.size, "Image size N or WxH (default 1024)");
    cmd->add_option("--seed", p.render.seed, "Seed (default 0)");
    cmd->add_option("--frames", p.render.frames, "Frames START:END; START..END-1 are profiled (default 0:1)");
    cmd->add_option("--json", p.json_path, "Write the table as JSON (- for standard output)");
    cmd->add_option("--compare", p.compare_path, "An earlier --json result: show before -> after");
    cmd->add_option("--timeout", p.timeout, "Seconds the profiled run may take (default 300)");
}

/// Checks and converts bench's options.
BenchArgs bench_args(const CommandLine& c) {
    const BenchText& t = c.bench_text;
    if (!t.scene_by_mistake.empty() || !t.renderer_by_mistake.empty())
        throw std::invalid_argument("render bench takes lists: --scenes rgb,rand10k and --renderers tiled,cpu (not --scene "
                                    "or -r, which are for a single render)");
    BenchArgs b = c.bench;
    b.scenes = split_list(t.scenes);
    if (b.scenes.empty()) throw std::invalid_argument("--scenes is empty: name at least one scene");
    for (const auto& s : b.scenes)
        if (!is_scene_name(s)) scene_circle_count(s);  // throws with the valid names
    if (std::set<std::string>(b.scenes.begin(), b.scenes.end()).size() != b.scenes.size())
        throw std::invalid_argument("--scenes names a scene twice");
    b.renderers = split_list(t.renderers);
    b.renderers_said = b.renderers;
    for (auto& r : b.renderers) r = canonical_renderer_name(r);  // unknown names: exit 2, listing the valid ones
    if (std::set<std::string>(b.renderers.begin(), b.renderers.end()).size() != b.renderers.size())
        throw std::invalid_argument("--renderers names a renderer twice");
    parse_size(t.size, b.width, b.height);
    b.seed = parse_seed(t.seed);
    b.frames = parse_frame_range(t.frames);
    b.repeat = parse_whole_number(t.repeat, "--repeat", 1, 1000, "use a whole number in 1..1000");
    b.check = !t.no_check;
    b.timing = parse_timing_method(t.timing);
    return b;
}

/// Options that mean something only with --student DIR are refused without it.
void check_student_options(const RenderArgs& a, const BenchArgs& b, bool bench) {
    if (bench ? !b.student_timeout.empty() && b.student_dir.empty() : !a.student_timeout.empty() && a.student_dir.empty())
        throw std::invalid_argument("--student-timeout goes with --student DIR (the time limit of your renderer's calls)");
    if (bench ? !b.student_memory.empty() && b.student_dir.empty() : !a.student_memory.empty() && a.student_dir.empty())
        throw std::invalid_argument("--student-memory goes with --student DIR (your renderer's device-memory budget)");
}

int dispatch(CommandLine& c, const char* argv0) {
    check_student_options(c.render, c.bench, static_cast<bool>(*c.bench_cmd));
    if (c.render.list) return run_list();
    if (*c.bench_cmd) return run_bench(bench_args(c));
    if (*c.refs_cmd) return run_refs(c.refs);
    if (*c.coalescence_cmd) return run_coalescence(c.coalescence);
    if (*c.grade_cmd) {
        c.grade.self = self_executable(argv0);
        if (!c.grade.class_dir.empty() || !c.grade.collect_dir.empty() || !c.grade.class_task.empty()) return run_class(c.grade);
        return run_grade(c.grade);
    }
    if (*c.profile_cmd) return run_profile(c.profile, argv0);
    if (c.render.interactive)
        return launch_gui(c.render.scene.empty() ? c.render.scene_pos : c.render.scene, c.render, argv0);
    return run_render(c.render);
}

/// Runs the command, mapping each kind of error to its exit code with one
/// "render: ..." line on stderr.
int run_command(CommandLine& c, const char* argv0) {
    try {
        return dispatch(c, argv0);
    } catch (const NoCudaDeviceError& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitNoGpu;
    } catch (const DeviceOutOfMemory& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitGpuMemory;
    } catch (const CudaError& e) {
        std::fprintf(stderr, "render: CUDA error: %s\n", e.what());
        return kExitRuntime;
    } catch (const SceneFileError& e) {
        std::fprintf(stderr, "render: bad scene file: %s\n", e.what());
        return kExitUsage;
    } catch (const FileError& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitUsage;
    } catch (const student::BuildError& e) {
        std::fprintf(stderr, "%s\nrender: %s\n", e.messages.c_str(), e.what());
        return kExitUsage;
    } catch (const ProfilerUnavailable& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitNoGpu;
    } catch (const student::NvccMissing& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitNoGpu;
    } catch (const student::SanitizerMissing& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitNoGpu;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitUsage;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "render: out of host memory\n");
        return kExitRuntime;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "render: %s\n", e.what());
        return kExitRuntime;
    }
}

/// The report on stdout is output too: a failed write (a full disk, a
/// closed terminal) is an error, exit code 2.
int finish_standard_output(int code) {
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
    std::fprintf(stderr, "render: cannot write to standard output: %s\n", errno ? std::strerror(errno) : "write failed");
    return code == kExitOk ? kExitUsage : code;
}

}  // namespace


int run_list() {
    std::printf("Scenes:");
    for (const auto& s : scene_names()) std::printf(" %s", s.c_str());
    std::printf("\nRenderers:\n");
    std::string why;
    const bool gpu = cuda_device_available(&why);
    for (const auto& i : renderer_infos())
        std::printf("  %-11s %s%s\n", i.name.c_str(), i.description.c_str(), i.needs_gpu && !gpu ? "  [unavailable]" : "");
    if (!gpu) std::printf("GPU renderers unavailable: %s\n", why.c_str());
    std::printf("CR_CUDA_OPTIONS (developer switches of the CUDA renderers, comma-separated key=value; docs/KERNELS.md):\n%s",
                cuda_switches_help().c_str());
    return kExitOk;
}

}  // namespace cr

int main(int argc, char** argv) {
    using namespace cr;
    CLI::App app{"render: draws the course's circle scenes on the CPU or GPU, times each stage, and checks images.\n"
                 "Example: render --scene rgb --check   |   render -r cuda -c rand10k   |   render bench"};
    app.set_help_flag("-h,--help,-?", "Print this help and exit");
    app.require_subcommand(0, 1);
    app.fallthrough(false);
    CommandLine c;
    add_render_options(app, c);
    add_bench_command(app, c);
    add_refs_command(app, c);
    add_coalescence_command(app, c);
    add_grade_command(app, c);
    add_profile_command(app, c);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return finish_standard_output(app.exit(e));
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "render: %s (see render --help)\n", e.what());
        return kExitUsage;
    }
    c.render.renderer_given = c.renderer_opt->count() > 0;
    c.render.file_given = c.file_opt->count() > 0;
    c.render.sanitize_given = c.sanitize_opt->count() > 0;
    c.grade.slurm_given = c.slurm_opt->count() > 0;
    return finish_standard_output(run_command(c, argv[0]));
}
