// `render grade --class DIR --out RESULTS`: a whole class, graded exactly as
// `render grade` grades one student (each student in processes of its own:
// this program run again, so one submission's crash, hang or hog never
// touches another's row).
//  1. Prepare: each entry's course folder (archives unpacked into
//     RESULTS/unpacked/ID) and its content hash; a student whose
//     RESULTS/ID.json has the same hash (and was graded the same way) is
//     skipped, so a rerun grades only what changed.
//  2. Build every folder, in parallel on the CPU cores (render --student DIR
//     --build-only), before any timing runs.
//  3. T_ref once per GPU at the start (render grade --measure-reference),
//     then each GPU grades one student at a time (CUDA_VISIBLE_DEVICES) with
//     those times; T_ref again at the end, and the report warns when the two
//     differ by more than the course's spread. Without a GPU: builds only.
//  4. RESULTS/ID.json a student (written once complete: Ctrl-C loses only
//     the students in progress), then grades.csv and report.html.
// --slurm writes and submits the same work as a Slurm job array (one task a
// student, --class-task), --collect makes the report from what finished.
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "render/class_entries.h"
#include "render/class_report.h"
#include "render/cli/class_work.h"
#include "render/cli/commands.h"
#include "render/core/text.h"
#include "render/options.h"
#include "render/renderer_factory.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace cr {

namespace {

/// Set by SIGINT: no new student starts; the running ones end with the signal.
std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted = true; }

/// The local GPUs to use: --gpus LIST, else 0..gpu_count()-1.
std::vector<int> local_gpus(const std::string& list) {
    std::vector<int> out;
    if (list.empty()) {
        for (int g = 0; g < gpu_count(); ++g) out.push_back(g);
        return out;
    }
    for (const auto& item : split_list(list))
        out.push_back(parse_whole_number(item, "--gpus", 0, 1023, "use GPU numbers, e.g. 0,1"));
    return out;
}

/// Builds the folders of `todo` on `jobs` threads.
void build_all(std::vector<ClassWork>& todo, const std::string& self, int jobs, ClassProgress& progress) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < jobs; ++t)
        pool.emplace_back([&] {
            for (size_t i; !g_interrupted && (i = next++) < todo.size();) {
                build_work(todo[i], self);
                progress.built(todo[i]);
            }
        });
    for (auto& t : pool) t.join();
}

/// Grades the built students of `todo`, one at a time on each GPU.
void grade_all(std::vector<ClassWork>& todo, const std::vector<int>& gpus, const ClassPlan& plan,
               ClassProgress& progress) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> lanes;
    for (int gpu : gpus)
        lanes.emplace_back([&, gpu] {
            for (size_t i; !g_interrupted && (i = next++) < todo.size();) {
                if (!todo[i].ready_to_grade()) continue;
                progress.grading(todo[i].entry.id, gpu);
                grade_work(todo[i], plan, gpu, plan.ref_times_of(gpu));
                if (!g_interrupted) progress.graded(todo[i], gpu);
            }
        });
    for (auto& t : lanes) t.join();
}

/// T_ref on every GPU at once (`when`: "start" or "end"), into plan.reference.
void measure_references(ClassPlan& plan, const std::vector<int>& gpus, const std::string& when) {
    std::vector<std::thread> lanes;
    std::mutex m;
    for (int gpu : gpus)
        lanes.emplace_back([&, gpu] {
            const json t = measure_reference_on(plan, gpu, when);
            std::lock_guard<std::mutex> lock(m);
            plan.set_reference(gpu, when, t);
        });
    for (auto& t : lanes) t.join();
}

/// Writes every finished student's result and the report; returns how many are missing.
size_t finish(const std::vector<ClassWork>& all, const ClassPlan& plan, double wall_s) {
    for (const auto& w : all)
        if (w.done) write_result(w, plan);
    ClassSummary summary;
    summary.mode = plan.mode_text();
    summary.wall_s = wall_s;
    summary.reference = plan.reference_json();
    const std::vector<json> students = collect_results(plan.out, plan.entry_ids(), summary.missing);
    write_class_report(plan.out.string(), students, summary);
    return summary.missing.size();
}

int run_local(const GradeArgs& a) {
    const auto t0 = std::chrono::steady_clock::now();
    ClassPlan plan = make_plan(a);
    const std::vector<int> gpus = local_gpus(a.gpus);
    plan.graded = !gpus.empty();
    plan.gpu_count = static_cast<int>(gpus.size());
    std::vector<ClassWork> all = prepare_all(plan);
    for (const auto& w : all)  // T_ref's snowsingle reads the course's snow.par, as the students' folders have it
        if (plan.particles_dir.empty() && !w.render_dir.empty() && fs::exists(fs::path(w.render_dir) / "snow.par"))
            plan.particles_dir = w.render_dir;
    std::vector<ClassWork> todo = plan.still_to_grade(all);
    ClassProgress progress(todo.size(), static_cast<int>(gpus.size()));
    std::fprintf(stderr, "render grade --class: %zu students, %zu unchanged since their last grade; %s\n", all.size(),
                 all.size() - todo.size(), plan.mode_text().c_str());
    std::signal(SIGINT, on_interrupt);
    build_all(todo, plan.self, a.jobs.empty() ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                   : parse_whole_number(a.jobs, "--jobs", 1, 256, "use a whole number"), progress);
    if (plan.graded && !todo.empty() && !g_interrupted) {
        measure_references(plan, gpus, "start");
        grade_all(todo, gpus, plan, progress);
        if (!g_interrupted) measure_references(plan, gpus, "end");
    }
    for (auto& w : todo) w.done = w.done || (!plan.graded && w.built);
    merge_into(all, todo);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    finish(all, plan, wall);
    std::printf("render grade --class: %zu students in %.0f s of wall time; %s\nresults: %s (grades.csv, report.html)\n",
                all.size(), wall, plan.mode_text().c_str(), plan.out.c_str());
    if (g_interrupted) {
        std::fprintf(stderr, "render grade --class: interrupted: the students in progress were not graded; run the "
                             "same command again to go on\n");
        return 130;
    }
    return kExitOk;
}

}  // namespace

int run_class(const GradeArgs& a) {
    if (!a.collect_dir.empty()) return run_collect(a);
    if (!a.class_task.empty()) return run_class_task(a);
    if (a.out_dir.empty()) throw std::invalid_argument("render grade --class needs --out RESULTS (a folder for the results)");
    if (a.slurm_given) return run_slurm(a);
    return run_local(a);
}

}  // namespace cr
