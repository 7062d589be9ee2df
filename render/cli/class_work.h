// The pieces of a class grade (render/cli/class_command.cpp): the plan, one
// student's work (prepare, build, grade, each in a process of its own), the
// progress line, the results on disk, and the Slurm path.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "render/class_entries.h"
#include "render/cli/commands.h"

namespace cr {

/// One student of a class run, from its entry to its result.
struct ClassWork {
    ClassEntry entry;
    std::string render_dir;  ///< its course folder ("" when none)
    std::string hash;        ///< folder_content_hash(render_dir)
    std::string problem;     ///< why it cannot be built at all (no course folder, an archive that does not unpack)
    bool built = false;      ///< its build succeeded
    std::string build_log;   ///< what `render --student DIR --build-only` printed
    nlohmann::json grade;    ///< the grade's JSON (null until graded)
    std::string grade_log;   ///< the end of what `render grade` printed
    int gpu = -1;            ///< the GPU it was graded on
    double seconds = 0;      ///< the grade's wall time
    std::string status;      ///< "graded", "build failed", "no course folder", "built (not graded: no GPU)", ...
    bool done = false;       ///< a final result to write
    bool ready_to_grade() const { return problem.empty() && built; }
};

/// What a class run needs to know, and the reference times it measured.
struct ClassPlan {
    std::filesystem::path out;   ///< RESULTS (absolute)
    std::string self, reference, seed, class_dir;
    std::vector<ClassEntry> entries;
    bool graded = false;         ///< there are GPUs: students are graded, not only built
    int gpu_count = 0;
    std::string particles_dir;   ///< a course folder with a snow.par, where T_ref is measured ("" = the working folder)
    nlohmann::json ref_times = nlohmann::json::object();  ///< T_ref measured: {"GPU": {"start": {scene: ms}, "end": {...}}}

    /// The --ref-times file of `gpu`'s start ("" when none was measured).
    std::string ref_times_of(int gpu) const;
    void set_reference(int gpu, const std::string& when, const nlohmann::json& times);
    /// For the report: [{"gpu": N, "start": {...}, "end": {...}}].
    nlohmann::json reference_json() const;
    /// "graded on 2 GPUs (0, 1)", "built only: no GPU here".
    std::string mode_text() const;
    std::vector<std::string> entry_ids() const;
    /// The students of `all` without a result of the same content hash (and grading mode).
    std::vector<ClassWork> still_to_grade(const std::vector<ClassWork>& all) const;
};

/// The plan of `render grade --class DIR --out RESULTS`. Throws std::invalid_argument for a bad class folder.
ClassPlan make_plan(const GradeArgs& args);
/// Every entry prepared: unpacked, its course folder found, hashed.
std::vector<ClassWork> prepare_all(const ClassPlan& plan);
/// Copies the results of `done` over the same students in `all`.
void merge_into(std::vector<ClassWork>& all, const std::vector<ClassWork>& done);

/// Builds the student's folder (`self` --student DIR --build-only, a process
/// of its own); sets built, build_log, status.
void build_work(ClassWork& w, const std::string& self);
/// Grades the built student on `gpu` (CUDA_VISIBLE_DEVICES; -1: the GPU this
/// process was given, as in a Slurm task) with the T_ref of `ref_times` ("":
/// measured by the grade). Sets grade, status, gpu, seconds, done (not done
/// when the grade was interrupted).
void grade_work(ClassWork& w, const ClassPlan& plan, int gpu, const std::string& ref_times);
/// T_ref of the 8 scenes on `gpu`, into RESULTS/tref_gpuN_WHEN.json; returns the scenes' times.
nlohmann::json measure_reference_on(const ClassPlan& plan, int gpu, const std::string& when);

/// Writes RESULTS/ID.json (atomically: complete or absent).
void write_result(const ClassWork& w, const ClassPlan& plan);
/// The results of `ids` in RESULTS; ids without one go to `missing`.
std::vector<nlohmann::json> collect_results(const std::filesystem::path& out, const std::vector<std::string>& ids,
                                            std::vector<std::string>& missing);

/// The progress of a class run, one line a step on stderr: counts, the
/// students on each GPU now, and the time left at the pace so far.
class ClassProgress {
public:
    ClassProgress(size_t students, int gpus) : students_(students), gpus_(gpus), now_(static_cast<size_t>(std::max(gpus, 1))) {}
    void built(const ClassWork& w);
    void grading(const std::string& id, int gpu);
    void graded(const ClassWork& w, int gpu);

private:
    std::string eta() const;
    std::mutex m_;
    size_t students_, built_ = 0, graded_ = 0;
    int gpus_;
    std::vector<std::string> now_;
    double grade_seconds_ = 0;
};

/// --collect RESULTS: the report of whatever the tasks finished.
int run_collect(const GradeArgs& args);
/// --class-task I --out RESULTS: entry I of RESULTS/entries.json (one Slurm task).
int run_class_task(const GradeArgs& args);
/// --slurm [OPTIONS]: RESULTS/entries.json and the job array script, submitted with sbatch.
int run_slurm(const GradeArgs& args);

}  // namespace cr
