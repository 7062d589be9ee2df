// `render grade`: the course's grading of a student's renderer
// (COURSE_INTERFACE.md, "The course's grading"), on the course's terms.
//  1. Correctness: the 8 scored scenes at 1024x1024, frame 0 with a random
//     seed, under the course's rule (0.1, at most 5 pixels), plus the other
//     6 scenes and two odd sizes (reported apart). The live references are
//     drawn by the multi-core `cpu` renderer (bit-identical to cpuref) on a
//     background thread, ahead of the student's renders on the GPU.
//  2. Timing, alone on the GPU: each scene 3 times as a fresh process of the
//     course's binary runs it (frame_loop.h, run_course_process: load, setup,
//     frames 0:4 with no warm-up, PPM files written between frames), the
//     minimum Total; T_ref from the course's render_ref run as checker.py
//     runs it, in a folder holding the same snow.par the student's renderer
//     drew. A reference that cannot time a scene is said, with its cause.
//  3. The course's score formula (render/grading.h), a table, notes, JSON.
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <random>
#include <tuple>

#include "render/cli/commands.h"
#include "render/core/text.h"
#include "render/grade_checks.h"
#include "render/core/output_file.h"
#include "render/grading.h"
#include "render/image_io.h"
#include "render/options.h"
#include "render/reference_cache.h"
#include "render/renderer_factory.h"
#include "render/student/course_folder.h"
#include "render/student/process.h"
#include "render/student/student_renderer.h"

namespace fs = std::filesystem;

namespace cr {

namespace {

const FrameRange kCourseFrames{0, 4};

/// One scored scene's grade.
struct SceneGrade {
    std::string scene;
    uint32_t seed = 0;
    GradeCheck check;
    std::optional<double> t_ms, t_ref_ms;
    std::string t_error;    ///< why the student's run gave no time
    std::string ref_note;   ///< where T_ref came from when not the chosen reference, and why
    bool beyond_year = false;  ///< not a scene of the folder's course year
    std::vector<double> ref_times, t_times;  ///< each run's Total (ms), in order: the reference's and the student's
    int ref_runs = 0;          ///< runs of the reference behind t_ref_ms (cached ones included; 0 when given)
    int t_runs = 0;            ///< timing runs of the student's renderer (fewer than 3 when settled early)
    double ref_wall_s = 0, t_wall_s = 0;  ///< wall time spent timing the reference and the student
    /// Each run's wall time, in order: {"reference" or "yours", start, seconds}, the
    /// start in seconds since the grade began (the JSON's "runs_s").
    std::vector<std::tuple<std::string, double, double>> spans;
    std::optional<int> score;
};

/// The course's render_ref's timing runs, each started ahead of time: while
/// one run uses the GPU, the runs that may come next (another of the same
/// scene, the first of the next) are already past exec, the dynamic loader
/// and their scene (generated on the CPU), held at their first load of the
/// CUDA driver (student::GatedRun) until the run before has exited; a run
/// started ahead and not needed is killed there, before any GPU work. So
/// runs never share the GPU, and the grade waits less between them. The
/// gate library also drops the last frame's PPM file (CR_SKIP_FILE): it
/// follows the timed part, as in the student's runs (run_course_process).
/// Without the gate library, or for a reference the gate cannot hold (the
/// probe says), each run starts when the one before it has ended.
class ReferenceRuns {
public:
    ReferenceRuns(std::string exe, fs::path cwd, std::string gate)
        : exe_(std::move(exe)), cwd_(std::move(cwd)), gate_(std::move(gate)) {}
    /// Whether runs start ahead.
    bool ahead() const { return !gate_.empty(); }
    const std::string& exe() const { return exe_; }
    /// One run of `scene` as checker.py runs it (600 s at most). `upcoming`:
    /// the scenes whose run may come after it, started now and held (the
    /// others held are killed).
    student::CapturedRun run(const std::string& scene, const std::vector<std::string>& upcoming) {
        std::unique_ptr<student::GatedRun> now;
        if (auto it = pending_.find(scene); it != pending_.end()) {
            now = std::move(it->second);
            pending_.erase(it);
        }
        if (!now) now = start(scene);
        if (ahead() && !now->reached_gate(600)) {
            std::fprintf(stderr, "render grade: %s ran without reaching the CUDA gate: its runs start one by one now\n",
                         exe_.c_str());
            gate_.clear();
        }
        std::map<std::string, std::unique_ptr<student::GatedRun>> keep;
        for (const auto& next : upcoming) {
            if (!ahead() || next.empty() || keep.count(next)) continue;
            auto it = pending_.find(next);
            keep[next] = it != pending_.end() ? std::move(it->second) : start(next);
        }
        pending_ = std::move(keep);  // runs no longer upcoming are killed at their gate
        return now->finish(600);
    }

private:
    std::unique_ptr<student::GatedRun> start(const std::string& scene) const {
        char last_file[64];  // the last frame's file of -b 0:4 -f logs/output
        std::snprintf(last_file, sizeof last_file, "logs/output_%04d.ppm", kCourseFrames.end - 1);
        return std::make_unique<student::GatedRun>(
            std::vector<std::string>{exe_, "-r", "cuda", "-b", "0:4", scene, "-s", "1024", "-f", "logs/output"},
            cwd_.string(), gate_, std::vector<std::string>{std::string("CR_SKIP_FILE=") + last_file});
    }
    std::string exe_;
    fs::path cwd_;
    std::string gate_;  ///< "" = no run ahead
    std::map<std::string, std::unique_ptr<student::GatedRun>> pending_;  ///< runs started ahead, by scene
};

/// Where T_ref comes from.
struct Reference {
    std::string exe;    ///< the course's render_ref ("" = this project's tiled kernel)
    std::string label;  ///< printed above the table
    /// T_ref per scene given by --ref-times (measured before, e.g. once per
    /// GPU for a whole class); empty: measured here.
    std::map<std::string, double> given;
    /// T_ref per scene kept from earlier grades on this GPU (reference_cache.h):
    /// the minimum of `runs` runs; a grade that needs more makes them.
    struct Kept {
        double ms = 0;
        int runs = 0;
    };
    std::map<std::string, Kept> kept;
    int64_t kept_since = 0;  ///< when the oldest kept run was made (seconds since the epoch; 0: none kept)
    /// The reference's runs (null exactly when exe is "").
    std::shared_ptr<ReferenceRuns> runs;
};

/// The grade's scratch folder (removed at the end): the reference's working
/// folder, holding the snow.par both sides use and logs/ for the PPM files.
class Scratch {
public:
    Scratch() {
        std::string tmpl = (fs::temp_directory_path() / "circle-renderer-grade-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("render grade: cannot make a scratch folder in " + tmpl);
        path_ = tmpl;
        fs::create_directories(path_ / "logs");
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

/// Seeds in [0, 100000] as the course draws them: from --seed S when given
/// (the same grade again), else at random.
std::vector<uint32_t> grading_seeds(const std::string& seed_text, size_t n) {
    std::mt19937 rng(seed_text.empty() ? std::random_device{}() : parse_seed(seed_text));
    std::uniform_int_distribution<uint32_t> pick(0, 100000);
    std::vector<uint32_t> seeds(n);
    for (auto& s : seeds) s = pick(rng);
    return seeds;
}

/// The last line of a program's output that is not blank ("" when none).
std::string last_line(const std::string& output) {
    const size_t end = output.find_last_not_of("\n\r \t");
    if (end == std::string::npos) return "";
    const size_t start = output.find_last_of('\n', end);
    return output.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

/// One run of the reference on `scene`, run as checker.py runs it, its
/// Total in ms; `upcoming` as ReferenceRuns::run. nullopt with `error`
/// naming the cause when the run gives no time.
std::optional<double> reference_run(ReferenceRuns& runs, const std::string& scene,
                                    const std::vector<std::string>& upcoming, std::string& error) {
    student::CapturedRun run;
    try {
        run = runs.run(scene, upcoming);
    } catch (const student::ProcessError& e) {
        error = e.what();
        return std::nullopt;
    }
    const std::optional<double> t = parse_course_total_ms(run.output);
    if (run.timed_out || run.exit_code != 0 || !t) {
        const std::string last = last_line(run.output);
        error = fs::path(runs.exe()).filename().string() + " gave no time on " + scene + " (" +
                (run.timed_out ? std::string("stopped after 600 s") : run.exit_text) +
                (last.empty() ? "" : ": '" + last + "'") + ")";
        return std::nullopt;
    }
    return t;
}

/// One course-process run of `r` on `s` (frame_loop.h), its Total in ms
/// (the last frame's PPM file, after the timed part, not written).
/// Throws student::StudentFault when the student's renderer faults.
double course_process_run(Renderer& r, const Scene& s, const fs::path& logs) {
    return run_course_process(r, s, 1024, 1024, kCourseFrames, (logs / (r.name() + "_output")).string(),
                              /*file_after_last=*/false).total_ms;
}

/// Throws std::invalid_argument when --reference names no executable file.
void check_reference_arg(const GradeArgs& a) {
    if (!a.reference.empty() && access(a.reference.c_str(), X_OK) != 0)
        throw std::invalid_argument("--reference '" + a.reference + "' is not an executable file");
}

/// Which reference times: --reference, else the folder's render_ref or
/// render_ref_x86 that runs here (a 64x64 probe run each), else our tiled
/// kernel. --reference is checked by check_reference_arg first; `report`:
/// say on stderr why a candidate does not run.
Reference choose_reference(const GradeArgs& a, const student::CourseFolder& folder, const fs::path& scratch,
                           bool report = true) {
    std::vector<std::string> candidates = folder.reference_binaries;
    if (!a.reference.empty()) candidates = {a.reference};
    const std::string gate = student::find_cuda_gate();
    for (const auto& exe : candidates) {
        std::string why;
        try {
            student::GatedRun probe({exe, "-r", "cuda", "-b", "0:1", "rgb", "-s", "64"}, scratch.string(), gate);
            const bool held = !gate.empty() && probe.reached_gate(120);
            const student::CapturedRun run = probe.finish(120);
            if (run.exit_code == 0 && parse_course_total_ms(run.output)) {
                Reference r;
                r.exe = exe;
                r.label = "reference: the course's " + exe +
                          " (run as checker.py runs it: -r cuda -b 0:4 SCENE -s 1024 -f logs/output, min of 3, fewer "
                          "where the score cannot change" +
                          (held ? "; each run started ahead, held before its first CUDA call until the one before "
                                  "exited; its last frame's PPM file, after the timed part, not written" : "") + ")";
                r.runs = std::make_shared<ReferenceRuns>(exe, scratch, held ? gate : "");
                return r;
            }
            why = run.exit_text;
        } catch (const student::ProcessError& e) {
            why = e.what();
        }
        if (report) std::fprintf(stderr, "render grade: %s does not run here (%s)\n", exe.c_str(), why.c_str());
    }
    Reference tiled;
    tiled.label = "reference: this project's tiled kernel timed the course's way (no course render_ref runs here; give "
                  "one with --reference), faster than the course's: scores are stricter";
    return tiled;
}

/// T_ref per scene from --ref-times' JSON (--measure-reference writes it:
/// {"reference": LABEL, "scenes": {"rgb": 0.097, ...}}). Throws
/// std::invalid_argument for a file that is not one.
Reference given_reference(const std::string& path) {
    std::ifstream in(path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument("--ref-times '" + path + "' is not readable JSON: " + e.what());
    }
    Reference r;
    r.label = "reference: T_ref from " + path + " (" + j.value("reference", std::string("?")) + ")";
    if (!j.contains("scenes") || !j["scenes"].is_object())
        throw std::invalid_argument("--ref-times '" + path + "' has no \"scenes\" object");
    for (const auto& [scene, t] : j["scenes"].items())
        if (t.is_number() && t.get<double>() > 0) r.given[scene] = t.get<double>();
    return r;
}

/// The timing runs of one scene, in the order next_timing_run (grading.h)
/// asks for them: T_ref from the chosen reference (given, kept from an
/// earlier grade, or run here), falling back to this project's tiled kernel
/// timed the course's way when the reference gives no time (`note` says
/// why), and T from fresh processes of the student's renderer.
class SceneTimer {
public:
    /// `student` null: the reference alone (measure_reference).
    /// `origin`: when the grade began (for SceneGrade::spans).
    /// `timed`: the scene as checker.py times it (the default seed).
    SceneTimer(SceneGrade& g, const Reference& ref, Renderer* student, const Scene& timed, fs::path logs,
               std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now())
        : g_(g), ref_(ref), student_(student), timed_(timed), logs_(std::move(logs)), origin_(origin) {
        runs_.correct = g.check.pass;
        if (const auto it = ref.given.find(g.scene); it != ref.given.end()) {
            runs_.ref_given = true;
            runs_.t_ref_ms = it->second;
        } else if (const auto kept = ref.kept.find(g.scene); kept != ref.kept.end()) {
            runs_.ref_runs = kept->second.runs;
            runs_.t_ref_ms = kept->second.ms;
        }
    }

    /// Times the scene; `upcoming`: the scenes whose reference runs may
    /// follow this scene's ("" none), started ahead during its last.
    void run(const std::string& upcoming) {
        for (NextRun n = next_timing_run(runs_); n != NextRun::Done; n = next_timing_run(runs_)) {
            const auto t0 = std::chrono::steady_clock::now();
            const bool more = n == NextRun::Reference ? reference_once(upcoming) : student_once();
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            (n == NextRun::Reference ? g_.ref_wall_s : g_.t_wall_s) += s;
            g_.spans.emplace_back(n == NextRun::Reference ? "reference" : "yours",
                                  std::chrono::duration<double>(t0 - origin_).count(), s);
            if (!more) break;
        }
        publish();
    }

    /// T_ref alone, as checker.py measures it: the minimum of 3 runs.
    void measure_reference(const std::string& upcoming) {
        while (!runs_.ref_given && runs_.ref_runs < kCourseTimingRuns && reference_once(upcoming)) {}
        publish();
    }

private:
    void publish() {
        g_.t_ref_ms = runs_.t_ref_ms;
        g_.ref_runs = runs_.ref_given ? 0 : runs_.ref_runs;
        g_.t_ms = runs_.t_ms;
        g_.t_runs = runs_.stu_runs;
    }

    /// One reference run; false when no T_ref can be had.
    bool reference_once(const std::string& upcoming) {
        std::optional<double> t;
        if (ref_.runs && !fell_back_) {
            std::string error;
            // this scene's next run, unless this is its last, and the next scene's first
            const std::vector<std::string> next = {runs_.ref_runs + 1 < kCourseTimingRuns ? g_.scene : "", upcoming};
            t = reference_run(*ref_.runs, g_.scene, next, error);
            if (!t) return fall_back(error);
        } else {
            if (!tiled_) tiled_ = make_renderer("tiled");
            try {
                t = course_process_run(*tiled_, timed_, logs_);
            } catch (const std::exception& e) {
                g_.ref_note += (g_.ref_note.empty() ? "" : "; ") + std::string("the tiled kernel gave no time: ") + e.what();
                return false;
            }
        }
        g_.ref_times.push_back(*t);
        runs_.add_reference_run(*t);
        return true;
    }

    /// The reference gave no time: T_ref is the tiled kernel's from here on.
    bool fall_back(const std::string& error) {
        fell_back_ = true;
        g_.ref_note = error + "; T_ref is this project's tiled kernel timed the course's way (stricter)";
        g_.ref_times.clear();
        runs_.ref_runs = 0;
        runs_.t_ref_ms.reset();
        return true;
    }

    /// One fresh-process run of the student's renderer; false when it faulted.
    bool student_once() {
        try {
            const double t = course_process_run(*student_, timed_, logs_);
            g_.t_times.push_back(t);
            runs_.add_student_run(t);
            return true;
        } catch (const student::StudentFault& e) {  // as checker.py, which gets no time from such a run
            g_.t_error = e.what();
            runs_.t_ms.reset();
            return false;
        }
    }

    SceneGrade& g_;
    const Reference& ref_;
    Renderer* student_;
    const Scene& timed_;
    const fs::path logs_;
    const std::chrono::steady_clock::time_point origin_;
    SceneRuns runs_;
    bool fell_back_ = false;
    std::unique_ptr<Renderer> tiled_;
};

/// The first scene after grades[i] whose reference may run ("" none):
/// neither given nor kept from all 3 runs.
std::string next_reference_scene(const std::vector<SceneGrade>& grades, const Reference& ref, size_t i) {
    if (!ref.runs) return "";
    for (size_t k = i + 1; k < grades.size(); ++k) {
        const auto kept = ref.kept.find(grades[k].scene);
        const bool all_kept = kept != ref.kept.end() && kept->second.runs >= kCourseTimingRuns;
        if (!ref.given.count(grades[k].scene) && !all_kept) return grades[k].scene;
    }
    return "";
}

/// The scenes as checker.py times them (the default seed), made on a
/// thread of their own from the start of the grade (rand1M and micro2M take
/// 0.13 and 0.27 s on one core of the development machine), so that the
/// timing waits for none of them.
class TimedScenes {
public:
    TimedScenes(const GradeScenes& scenes, const std::vector<std::string>& names)
        : made_(std::async(std::launch::async, [&scenes, names] {
              std::map<std::string, Scene> m;
              for (const auto& n : names) m.emplace(n, scenes.make(n, 0));
              return m;
          }).share()) {}
    /// Scene `name` (waits for it; rethrows what making it threw).
    const Scene& at(const std::string& name) const { return made_.get().at(name); }

private:
    std::shared_future<std::map<std::string, Scene>> made_;
};

/// T and T_ref of one scene, each run timed alone on the GPU (SceneTimer),
/// and its score. `upcoming`: the next scene whose reference runs ("" none).
void time_scene(SceneGrade& g, const std::string& upcoming, Renderer& student, const Reference& ref,
                const TimedScenes& timed, const fs::path& scratch, std::chrono::steady_clock::time_point origin) {
    SceneTimer(g, ref, &student, timed.at(g.scene), scratch / "logs", origin).run(upcoming);
    if (!g.ref_note.empty() && g.beyond_year) g.ref_note += ": " + g.scene + " is beyond your folder's course year";
    if (g.t_ms && g.t_ref_ms) g.score = course_scene_score(g.check.pass, *g.t_ms, *g.t_ref_ms);
    else if (!g.check.pass) g.score = 0;
}

/// Opens the CUDA driver in this process for the rest of the grade (no
/// context, no device memory, no GPU work). Each of the grade's ~48 timing
/// runs is a fresh process; while some process holds the driver open, one
/// starts in 0.19 s instead of 0.31 s of wall time (render_ref_x86 -b 0:1 rgb
/// -s 64 on the H200, persistence mode on, 5 runs each; the times the runs
/// print do not move: rand10k 0.538-0.552 ms with, 0.542-0.551 without).
void keep_driver_open() { gpu_count(); }

/// The T_ref cache's key for `ref` ("" for this project's tiled kernel and
/// for --ref-times: nothing to keep).
std::string cache_key_of(const Reference& ref, const fs::path& scratch) {
    if (ref.exe.empty() || !ref.given.empty()) return "";
    const fs::path par = scratch / "snow.par";
    return reference_cache_key(ref.exe, gpu_description(), fs::exists(par) ? par.string() : "");
}

int64_t seconds_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Takes the T_ref runs kept in the cache (reference_cache.h) for `key`
/// within kReferenceCacheHours; true when there were any.
bool use_cached_reference(Reference& ref, const std::string& key) {
    const auto hit = find_cached_reference_times(reference_cache_path(), key, seconds_now());
    if (!hit) return false;
    for (const auto& [scene, ms] : hit->scenes) ref.kept[scene] = Reference::Kept{ms, hit->runs.at(scene)};
    ref.kept_since = hit->measured_at;
    char when[64];
    const std::time_t t = static_cast<std::time_t>(hit->measured_at);
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", std::localtime(&t));
    ref.label += "; T_ref runs kept from a grade here, on this GPU, since " + std::string(when) + " (kept for " +
                 std::to_string(static_cast<int>(kReferenceCacheHours)) + " h; --fresh-reference times it again)";
    return true;
}

/// Keeps the T_ref runs of this grade, and those kept before, for the next
/// grades: each scene whose T_ref came from the reference itself.
void remember_reference(const std::vector<SceneGrade>& grades, const Reference& ref, const std::string& key) {
    CachedReferenceTimes t;
    for (const auto& [scene, kept] : ref.kept) {  // scenes this grade did not time stay as they were
        t.scenes[scene] = kept.ms;
        t.runs[scene] = kept.runs;
    }
    bool measured = false;
    for (const auto& g : grades) {
        if (!g.t_ref_ms || !g.ref_note.empty() || g.ref_runs == 0) continue;
        t.scenes[g.scene] = *g.t_ref_ms;
        t.runs[g.scene] = g.ref_runs;
        const auto kept = ref.kept.find(g.scene);
        measured = measured || kept == ref.kept.end() || kept->second.runs != g.ref_runs;
    }
    if (!measured || t.scenes.empty()) return;  // nothing new to keep
    t.measured_at = ref.kept_since ? ref.kept_since : seconds_now();  // an entry ages from its oldest run
    if (!store_reference_times(reference_cache_path(), key, t))
        std::fprintf(stderr, "render grade: could not keep T_ref in %s (the next grade times it again)\n",
                     reference_cache_path().c_str());
}

/// "your renderer hung in the check of SCENE (WHY)" for the first scored
/// scene whose check hung, or "" when none did (a hang in an extra check
/// alone does not stop the timing of the scored scenes).
std::string first_hang(const std::vector<SceneGrade>& grades) {
    for (const auto& g : grades)
        if (g.check.hung) return "your renderer hung in the check of " + g.scene + " (" + g.check.why + ")";
    return "";
}

/// The course's total: the sum of the scene scores.
int total_score(const std::vector<SceneGrade>& grades) {
    int total = 0;
    for (const auto& g : grades) total += g.score.value_or(0);
    return total;
}

std::string cell(const std::optional<double>& t) {
    if (!t) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", *t);
    return buf;
}

void print_grade_table(const std::vector<SceneGrade>& grades, const Reference& ref) {
    std::printf("%s\n", ref.label.c_str());
    const std::string rule_line = std::string(86, '-') + "\n";  // the table's width
    const char* rule = rule_line.c_str();
    std::printf("%s| %-12s | %16s | %13s | %5s | %-24s |\n%s", rule, "Scene Name", "Ref Time (T_ref)", "Your Time (T)",
                "Score", "Correct (seed)", rule);
    for (const auto& g : grades) {
        char correct[64];
        std::snprintf(correct, sizeof correct, "%s (%u)%s", g.check.pass ? "yes" : "NO", g.seed, g.beyond_year ? " +" : "");
        const std::string tref = cell(g.t_ref_ms) + (g.ref_note.empty() ? "" : "*");
        const std::string score = g.score ? std::to_string(*g.score) : "-";
        std::printf("| %-12s | %16s | %13s | %5s | %-24s |\n", g.scene.c_str(), tref.c_str(), cell(g.t_ms).c_str(),
                    score.c_str(), correct);
    }
    const std::string score = std::to_string(total_score(grades)) + " / " + std::to_string(grades.size() * kCourseSceneMax);
    std::printf("%s| %-64s | %-15s |\n%s", rule, "Total score:", score.c_str(), rule);
}

/// Why a scene's T comes from fewer than 3 runs (timing_settled).
std::string settled_note(const SceneGrade& g) {
    char runs[96];
    const auto plural = [](int n) { return n == 1 ? "" : "s"; };
    const bool ref_short = g.ref_runs > 0 && g.ref_runs < kCourseTimingRuns;
    if (ref_short)
        std::snprintf(runs, sizeof runs, "T from %d run%s, T_ref from %d", g.t_runs, plural(g.t_runs), g.ref_runs);
    else
        std::snprintf(runs, sizeof runs, "T from %d run%s", g.t_runs, plural(g.t_runs));
    char text[400];
    if (!g.check.pass)
        std::snprintf(text, sizeof text, "%s: %s: incorrect, so 0 points whatever the times", g.scene.c_str(), runs);
    else if (g.score == kCourseSceneMax)
        std::snprintf(text, sizeof text, "%s: %s: within 1.2 x T_ref%s, so 9 points whatever other runs give (from %.0f ms "
                      "on, a scene's runs agree within 1%%)", g.scene.c_str(), runs, ref_short ? " with 2% to spare" : "",
                      kSteadyTimeMs);
    else if (g.t_ms && g.t_ref_ms && *g.t_ms > kSettledFloorFactor * *g.t_ref_ms)
        std::snprintf(text, sizeof text, "%s: %s: above %.1f x T_ref, so 2 points (the course's floor is 10 x T_ref) "
                      "unless a run of yours were over 20%% faster", g.scene.c_str(), runs, kSettledFloorFactor);
    else
        std::snprintf(text, sizeof text, "%s: %s: the runs made before the timing stopped", g.scene.c_str(), runs);
    return text;
}

void print_grade_notes(const std::vector<SceneGrade>& grades, const GradeScenes& scenes, const student::CourseFolder& f) {
    for (const auto& g : grades) {
        if (!g.check.pass) std::printf("%s: incorrect: %s\n", g.scene.c_str(), g.check.why.c_str());
        if (!g.check.warning.empty()) std::printf("%s: warning: %s\n", g.scene.c_str(), g.check.warning.c_str());
        if (!g.t_error.empty()) std::printf("%s: no time: %s\n", g.scene.c_str(), g.t_error.c_str());
        if (!g.ref_note.empty()) std::printf("%s: T_ref*: %s\n", g.scene.c_str(), g.ref_note.c_str());
        if (g.t_ms && (g.t_runs < kCourseTimingRuns || (g.ref_runs > 0 && g.ref_runs < kCourseTimingRuns)))
            std::printf("%s\n", settled_note(g).c_str());
    }
    bool beyond = false;
    for (const auto& g : grades) beyond = beyond || g.beyond_year;
    if (beyond)
        std::printf("+ beyond your folder's course year (%s): its course grades no such scene; scored here as the "
                    "newest course does\n", student::layout_label(f.layout).c_str());
    std::printf("%s\n", scenes.particle_note().c_str());
    std::printf("Correct: frame 0 at 1024x1024 under the course's rule (a color off by more than 0.1, at most 5 pixels) "
                "against %s.\n", live_reference_label().c_str());
    std::printf("T: ms per frame as the course measures it: each of %d runs (fewer where noted) a fresh process (load, "
                "setup, frames 0:4 with no warm-up, each call timed with the host clock%s, PPM files written between "
                "frames outside the timed part); the minimum Total. T_ref: the minimum Total of the reference's runs as "
                "checker.py runs it (%d; fewer where noted).\n",
                kCourseTimingRuns,
                f.benchmark.syncs ? " after cudaDeviceSynchronize" : " as it returns (your benchmark's way, below)",
                kCourseTimingRuns);
    std::printf("Timing of your calls: %s.\n", student::benchmark_timing_text(f.benchmark).c_str());
}

/// The grade's rows; with `artifacts`, each incorrect scene's diff heat map
/// is written there as SCENE_diff.png and named in its row.
nlohmann::json grade_json(const std::vector<SceneGrade>& grades, const std::string& artifacts) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& g : grades) {
        nlohmann::json row = {{"scene", g.scene}, {"correct", g.check.pass}, {"seed", g.seed}};
        row["ref_time"] = g.t_ref_ms ? nlohmann::json(*g.t_ref_ms) : nlohmann::json(nullptr);
        row["stu_time"] = g.t_ms ? nlohmann::json(*g.t_ms) : nlohmann::json(nullptr);
        row["score"] = g.score ? nlohmann::json(*g.score) : nlohmann::json(nullptr);
        row["stu_runs"] = g.t_runs;
        row["ref_runs"] = g.ref_runs;
        row["stu_times"] = g.t_times;
        row["ref_times"] = g.ref_times;
        row["runs_s"] = nlohmann::json::array();  // each timing run: who, its start since the grade began, its length
        for (const auto& [who, start, length] : g.spans) row["runs_s"].push_back({who, start, length});
        for (const auto& [key, text] : {std::pair{"why", g.check.why}, std::pair{"warning", g.check.warning},
                                        std::pair{"time_error", g.t_error}, std::pair{"ref_note", g.ref_note}})
            if (!text.empty()) row[key] = text;
        if (g.beyond_year) row["beyond_course_year"] = true;
        if (!g.check.story.empty()) row["story"] = g.check.story;
        if (!artifacts.empty() && g.check.diff.width > 0) {
            const std::string name = g.scene + "_diff.png";
            write_image(g.check.diff, (fs::path(artifacts) / name).string(), ImageFormat::Png);
            row["diff_png"] = name;
        }
        rows.push_back(row);
    }
    return rows;
}

/// Prints the extra checks' summary and failures, and adds them to `j` ("also_checked").
void print_extra_checks(const std::vector<CheckJob>& jobs, const std::vector<GradeCheck>& checks, nlohmann::json& j) {
    size_t passed = 0;
    j["also_checked"] = nlohmann::json::array();
    for (size_t i = 0; i < jobs.size(); ++i) {
        const std::string what = jobs[i].scene + " " + std::to_string(jobs[i].width) + "x" + std::to_string(jobs[i].height);
        j["also_checked"].push_back({{"check", what}, {"pass", checks[i].pass}, {"why", checks[i].why}});
        passed += checks[i].pass;
    }
    std::printf("Also checked, not scored: the other 6 scenes at 1024x1024 and rgb, rand10k, pattern, snowsingle at "
                "1000x600 and 257x129: %zu of %zu pass\n", passed, jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i)
        if (!checks[i].pass)
            std::printf("  %s %dx%d: %s\n", jobs[i].scene.c_str(), jobs[i].width, jobs[i].height, checks[i].why.c_str());
}

/// The scored scenes --scenes names, in the course's order (all 8 for "").
/// Throws std::invalid_argument naming a scene that is not scored.
std::vector<std::string> graded_scenes(const std::string& list) {
    const auto& scored = course_scored_scenes();
    if (list.empty()) return scored;
    std::vector<std::string> wanted = split_list(list);
    for (const auto& w : wanted)
        if (std::find(scored.begin(), scored.end(), w) == scored.end()) {
            std::string all;
            for (const auto& s : scored) all += (all.empty() ? "" : ", ") + s;
            throw std::invalid_argument("--scenes: '" + w + "' is not one of the course's 8 scored scenes (" + all + ")");
        }
    std::vector<std::string> out;
    for (const auto& s : scored)
        if (std::find(wanted.begin(), wanted.end(), s) != wanted.end()) out.push_back(s);
    return out;
}

/// The correctness work of the graded scenes and, when all 8 are graded,
/// of the extra checks. Each scene's seed is the one a grade of all 8 with
/// the same --seed draws for it.
std::vector<SceneGrade> check_everything(Renderer& student, const GradeScenes& scenes, const std::string& seed_text,
                                         const std::vector<std::string>& graded, const student::CourseFolder& f,
                                         std::vector<CheckJob>& extra_jobs, std::vector<GradeCheck>& extra) {
    const auto& scored = course_scored_scenes();
    const std::vector<uint32_t> seeds = grading_seeds(seed_text, scored.size());
    std::vector<CheckJob> jobs;
    for (size_t i = 0; i < scored.size(); ++i)
        if (std::find(graded.begin(), graded.end(), scored[i]) != graded.end())
            jobs.push_back({scored[i], seeds[i], 1024, 1024});
    const size_t n = jobs.size();
    extra_jobs = graded.size() == scored.size() ? extra_check_jobs() : std::vector<CheckJob>{};
    jobs.insert(jobs.end(), extra_jobs.begin(), extra_jobs.end());
    std::vector<GradeCheck> checks = run_grade_checks(student, jobs, scenes);
    std::vector<SceneGrade> grades;
    for (size_t i = 0; i < n; ++i) {
        SceneGrade g;
        g.scene = jobs[i].scene;
        g.seed = jobs[i].seed;
        g.check = checks[i];
        g.beyond_year = f.layout.scenes < 13 && (g.scene == "rand1M" || g.scene == "micro2M");
        grades.push_back(g);
    }
    extra.assign(checks.begin() + static_cast<long>(n), checks.end());
    return grades;
}

}  // namespace

/// `render grade --measure-reference`: T_ref of the 8 scored scenes (the
/// reference chosen as for a grade; snowsingle from ./snow.par or the
/// stand-in), printed and written with --json for later --ref-times.
int run_measure_reference(const GradeArgs& a) {
    if (!a.json_path.empty()) check_writable(a.json_path);
    keep_driver_open();
    const Scratch scratch;
    const student::CourseFolder none;
    const GradeScenes scenes(none, scratch.path());
    check_reference_arg(a);
    const Reference ref = choose_reference(a, none, scratch.path());
    std::printf("%s\n", ref.label.c_str());
    nlohmann::json j = {{"reference", ref.label}, {"device", gpu_description()}, {"snow_par", scenes.particle_note()},
                        {"scenes", nlohmann::json::object()}, {"notes", nlohmann::json::object()}};
    const auto& scored = course_scored_scenes();
    for (size_t i = 0; i < scored.size(); ++i) {
        const std::string& scene = scored[i];
        SceneGrade g;
        g.scene = scene;
        const Scene timed = scenes.make(scene, 0);
        SceneTimer(g, ref, nullptr, timed, scratch.path() / "logs")
            .measure_reference(i + 1 < scored.size() ? scored[i + 1] : "");
        const std::string& note = g.ref_note;
        std::printf("%-12s %s%s\n", scene.c_str(), cell(g.t_ref_ms).c_str(), note.empty() ? "" : ("  (" + note + ")").c_str());
        j["scenes"][scene] = g.t_ref_ms ? nlohmann::json(*g.t_ref_ms) : nlohmann::json(nullptr);
        if (!note.empty()) j["notes"][scene] = note;
    }
    if (!a.json_path.empty()) write_text_file(a.json_path, j.dump(2) + "\n");
    return kExitOk;
}

int run_grade(const GradeArgs& a) {
    if (a.measure_reference) return run_measure_reference(a);
    if (a.student_dir.empty()) throw std::invalid_argument("render grade needs --student DIR (your course's render/ folder)");
    if (!a.json_path.empty()) check_writable(a.json_path);
    if (!a.artifacts_dir.empty()) fs::create_directories(a.artifacts_dir);
    const auto t0 = std::chrono::steady_clock::now();
    keep_driver_open();
    const std::vector<std::string> graded = graded_scenes(a.scenes);
    const student::CourseFolder folder = student::read_course_folder(a.student_dir);
    const std::unique_ptr<Renderer> student = make_renderer("student", student_context(a.student_dir, a.student_timeout, a.student_memory));
    const Scratch scratch;
    const GradeScenes scenes(folder, scratch.path());
    const TimedScenes timed(scenes, graded);
    check_reference_arg(a);
    Reference ref;
    std::future<Reference> chosen;  // the reference's probe runs during the checks: neither is timed
    if (a.ref_times_path.empty())
        chosen = std::async(std::launch::async, [&] { return choose_reference(a, folder, scratch.path(), false); });
    else
        ref = given_reference(a.ref_times_path);
    if (graded.size() == course_scored_scenes().size())
        std::fprintf(stderr, "checking: the 8 scored scenes, then 14 more checks (references drawn alongside) ...\n");
    else
        std::fprintf(stderr, "checking: %zu of the 8 scored scenes (--scenes; no other checks) ...\n", graded.size());
    std::vector<CheckJob> extra_jobs;
    std::vector<GradeCheck> extra;
    std::vector<SceneGrade> grades = check_everything(*student, scenes, a.seed, graded, folder, extra_jobs, extra);
    if (chosen.valid()) {
        ref = chosen.get();
        // a probe can fail beside the checks where the GPU takes one process
        // at a time (exclusive-process mode): then each is tried again, alone
        if (ref.exe.empty()) ref = choose_reference(a, folder, scratch.path());
    }
    const std::string cache_key = cache_key_of(ref, scratch.path());
    const bool cached = !cache_key.empty() && !a.fresh_reference && use_cached_reference(ref, cache_key);
    const double checks_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string hung = first_hang(grades);
    for (size_t i = 0; i < grades.size(); ++i) {
        if (!hung.empty()) {  // each run would wait the whole time limit: not timed, 0 points (incorrect)
            grades[i].t_error = "not timed: " + hung;
            grades[i].score = 0;
            continue;
        }
        std::fprintf(stderr, "[%zu/%zu] %s: timing (T_ref and fresh runs of yours, up to 3 each) ...\n", i + 1,
                     grades.size(), grades[i].scene.c_str());
        time_scene(grades[i], next_reference_scene(grades, ref, i), *student, ref, timed, scratch.path(), t0);
    }
    if (!cache_key.empty()) remember_reference(grades, ref, cache_key);
    print_grade_table(grades, ref);
    print_grade_notes(grades, scenes, folder);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    nlohmann::json j = {{"student", folder.dir}, {"layout", student::layout_label(folder.layout)},
                        {"timing", student::benchmark_timing_text(folder.benchmark)},
                        {"reference", ref.label}, {"ref_cached", cached}, {"snow_par", scenes.particle_note()},
                        {"scenes", grade_json(grades, a.artifacts_dir)},
                        {"total", total_score(grades)}, {"max", static_cast<int>(grades.size()) * kCourseSceneMax}};
    if (!extra_jobs.empty()) print_extra_checks(extra_jobs, extra, j);
    double ref_s = 0, t_s = 0;
    for (const auto& g : grades) {
        ref_s += g.ref_wall_s;
        t_s += g.t_wall_s;
    }
    std::printf("Graded in %.1f s of wall time (start-up and checks %.1f s, timing the reference %.1f s, timing yours "
                "%.1f s).\n", wall, checks_s, ref_s, t_s);
    j["wall_s"] = wall;
    j["wall_split_s"] = {{"checks", checks_s}, {"reference_timing", ref_s}, {"student_timing", t_s}};
    if (!a.json_path.empty()) write_text_file(a.json_path, j.dump(2) + "\n");
    return kExitOk;
}

}  // namespace cr
