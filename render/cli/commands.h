// The commands of `render` (main.cpp parses, these run).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/renderer_factory.h"
#include "scenes/scene.h"

namespace cr {

/// Options of `render` itself (render one scene).
struct RenderArgs {
    std::string scene, scene_pos, scene_file, particles, renderer, size = "1024", seed = "0", frames = "0:1";
    std::string file_prefix, format = "png", diff_path, json_path, tolerance = "strict", reference_dir;
    std::string student_dir;              ///< --student DIR: run the student's renderer (renderer "student")
    std::string student_timeout;          ///< seconds a student's call may take ("" = kDefaultStudentTimeout)
    std::string student_memory;           ///< --student-memory GIB: the student's device-memory budget ("" = default)
    std::string timing = "events";        ///< events or course (our renderers; the student's is always course)
    bool check = false, interactive = false, list = false, build_only = false;
    bool sanitize_given = false;  ///< --sanitize [TOOL]
    std::string sanitize;         ///< its tool ("" = memcheck)
    bool profile_range = false;           ///< hidden: profile the counted frames (render profile's child run)
    bool renderer_given = false, file_given = false;
};

/// A `render` run's options, checked and parsed (plan_render).
struct RenderPlan {
    std::string scene_name;     ///< "" with --scene-file
    int width = 0, height = 0;  ///< pixels
    uint32_t seed = 0;
    FrameRange range;
    float tolerance = kStrictTolerance;
    std::string renderer;       ///< as asked for ("" = the default); "student" with --student
    TimingMethod timing = TimingMethod::Events;
    std::string particle_file;  ///< snowsingle's .par file, when one was read (set by run_render)
};

/// Checks every option of a `render` run before anything is rendered or
/// written (scene, size, seed, frames, tolerance, renderer, formats, output
/// paths); throws std::invalid_argument naming the bad option.
RenderPlan plan_render(const RenderArgs& args);

/// The path of this program (/proc/self/exe), or `argv0` when it cannot be
/// read: to start the program again (render profile) or find programs built
/// beside it (the GUI for -i).
std::string self_executable(const char* argv0);

/// The renderer name a run asks for: --student DIR means "student"; -r and
/// --student together must agree. Throws std::invalid_argument.
std::string requested_renderer(const std::string& renderer, const std::string& student_dir);

/// What make_renderer needs for the student's renderer: the folder, the time
/// limit (whole seconds, 1..3600), and notes printed to stderr.
/// The `student` renderer's context from --student DIR, --student-timeout S
/// and --student-memory GIB ("" = their defaults). Throws std::invalid_argument
/// for a bad number.
RendererContext student_context(const std::string& student_dir, const std::string& timeout_text,
                                const std::string& memory_text);

/// `render --student DIR --build-only`: builds (or finds in the cache) and
/// prints where the build is. Returns 0; errors are thrown (BuildError: 2,
/// NvccMissing: 3).
int run_build_only(const RenderArgs& args);

/// `render --student DIR --sanitize [TOOL]`: the student's renderer under
/// compute-sanitizer on the scene, size and frames asked for; each distinct
/// error once with the student's file and line, then a summary. Returns 0
/// when clean, 1 when it found any; throws student::SanitizerMissing (exit 3).
int run_sanitize(const RenderArgs& args);

/// Runs `render`: renders, prints the times, writes the files, checks;
/// returns the exit code (1 when --check fails).
int run_render(const RenderArgs& args);

/// Prints the scenes and renderers of `render --list`.
int run_list();

/// Options of `render bench`.
struct BenchArgs {
    std::vector<std::string> scenes;     ///< scene names
    std::vector<std::string> renderers;  ///< renderer names (canonical: 'cuda' is 'tiled')
    std::vector<std::string> renderers_said;  ///< the same, as --renderers named them (for messages)
    int width = 1024, height = 1024;
    uint32_t seed = 0;
    FrameRange frames{0, 4};
    int repeat = 5;
    bool check = true;
    std::string json_path, csv_path, compare_path;
    std::string student_dir, student_timeout;  ///< the `student` renderer's folder and time limit ("" = the default)
    std::string student_memory;                ///< --student-memory GIB ("" = the default budget)
    TimingMethod timing = TimingMethod::Events;      ///< our renderers' timing method (--timing)
};

/// The scenes `render bench` runs without --scenes: the course's scenes
/// except the animated ones (bouncingballs, fireworks, hypnosis, snow) and rand10M.
inline const char* const kDefaultBenchScenes =
    "rgb,rgby,rand10k,rand100k,rand1M,biglittle,littlebig,pattern,micro2M,snowsingle";

/// Runs `render bench`; returns the exit code: 1 when a result failed its
/// check, else 3 when a renderer could not run here (no GPU), else 0.
int run_bench(const BenchArgs& args);

/// Options of `render coalescence` (render/cli/coalescence_command.cpp).
struct CoalescenceArgs {
    std::string scenes = "rgb,pattern,rand10k,rand100k,biglittle,littlebig,rand1M,micro2M,snowsingle";
    std::string size = "1024", seed = "0", window = "0", json_path;
};

/// For each scene: how many circles cover each pixel, how many blends its
/// two trajectories needed to meet, the blends an exact early-stopping walk
/// does against cpuref's, and that every pixel equals cpuref's (0 pixels
/// differ). Exit 0, or 1 when a pixel differs.
int run_coalescence(const CoalescenceArgs& args);

/// Options of `render refs` (regenerates reference_images/).
struct RefsArgs {
    std::string out_dir;
    bool only_small = false;  ///< only the 256x256 set
};

/// Renders every stored reference image with cpuref into out_dir (created
/// when missing).
int run_refs(const RefsArgs& args);

/// Options of `render grade`.
struct GradeArgs {
    std::string student_dir;             ///< --student DIR
    std::string reference;               ///< --reference PATH: the course's render_ref ("" = DIR/render_ref if it runs)
    std::string seed;                    ///< --seed S: the correctness seeds' generator ("" = random)
    std::string json_path;
    std::string student_timeout;  ///< "" = kDefaultStudentTimeout
    std::string student_memory;   ///< --student-memory GIB ("" = the default budget)
    std::string artifacts_dir;    ///< --artifacts DIR: each incorrect scene's diff heat map (PNG) goes there
    std::string ref_times_path;   ///< --ref-times FILE: T_ref per scene as measured before (--measure-reference's JSON)
    bool measure_reference = false;  ///< --measure-reference: only time the reference on the 8 scenes
    bool fresh_reference = false;    ///< --fresh-reference: time the reference even when T_ref is cached
    std::string scenes;              ///< --scenes LIST: grade only these scored scenes ("" = all 8)
    // ---- a whole class (render/cli/class_command.cpp) ----
    std::string class_dir;         ///< --class DIR: one entry (folder or archive) per student
    std::string out_dir;           ///< --out RESULTS: results, unpacked archives, the report
    std::string gpus;              ///< --gpus LIST: the local GPUs to use ("" = all)
    std::string jobs;              ///< --jobs N: builds at once ("" = the CPU cores)
    bool slurm_given = false;      ///< --slurm [OPTIONS]: a Slurm job array instead of the local GPUs
    std::string slurm;             ///< sbatch options, e.g. "--partition=gpu --time=1:00:00"
    std::string slurm_gpus = "1";  ///< --slurm-gpus N: GPUs a task asks for (0: build only)
    std::string class_task;        ///< --class-task I: grade entry I of RESULTS/entries.json (a Slurm task)
    std::string collect_dir;       ///< --collect RESULTS: grades.csv and report.html from the tasks that finished
    std::string self;              ///< this program, to run itself per student
};

/// `render grade --class DIR --out RESULTS` (and --slurm, --class-task,
/// --collect): see render/cli/class_command.cpp.
int run_class(const GradeArgs& args);

/// Runs `render grade` (render/cli/grade.cpp); returns 0 once graded.
int run_grade(const GradeArgs& args);

/// Options of `render profile`.
struct ProfileArgs {
    RenderArgs render;          ///< the run to profile (scene, renderer or --student, size, frames, seed)
    std::string json_path, compare_path;
    std::string timeout = "300";  ///< seconds the profiled run may take
};

/// Runs `render profile` (render/cli/profile_command.cpp): the frames under
/// Nsight Compute, a table per kernel launch, findings; exit 3 when ncu
/// cannot be used.
int run_profile(const ProfileArgs& args, const char* argv0);

/// Where the human-readable report goes: stderr when one of `data_paths`
/// is standard output ("-", /dev/stdout), so that stdout holds only that
/// data; else stdout. Throws std::invalid_argument when two of them are.
std::FILE* report_stream(const std::vector<std::string>& data_paths);

/// Writes `text` to the data output `path` (write_text_file: atomically, or
/// to standard output for "-") and says "Wrote PATH" on `report` unless it
/// went to standard output. Throws FileError.
void write_data_file(std::FILE* report, const std::string& path, const std::string& text);

/// A time in ms, or a ratio, as the JSON and CSV outputs give it: 4
/// significant digits (the rest is run-to-run noise).
double json_figure(double v);

}  // namespace cr
