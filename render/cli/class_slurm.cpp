// A class graded as a Slurm job array (class_work.h: run_slurm,
// run_class_task, run_collect). The submitting host prepares every entry
// (archives unpacked into RESULTS, on a filesystem the nodes share) and
// writes RESULTS/entries.json and RESULTS/grade_array.sh; each array task
// builds and grades one student exactly as the local run does (on the GPU
// Slurm gave it, or builds only where it has none) into RESULTS/ID.json;
// --collect makes grades.csv and report.html of whatever finished.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "render/class_report.h"
#include "render/cli/class_work.h"
#include "render/core/output_file.h"
#include "render/core/text.h"
#include "render/options.h"
#include "render/renderer_factory.h"
#include "render/student/process.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace cr {

namespace {

json read_entries(const fs::path& out) {
    std::ifstream in(out / "entries.json");
    if (!in) throw std::invalid_argument("'" + out.string() + "' has no entries.json: is it the --out of render grade --class --slurm?");
    return json::parse(in);
}

/// Single quotes for a POSIX shell.
std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// The job array script: one task a student, each running --class-task.
std::string array_script(const ClassPlan& plan, size_t tasks, int gpus_per_task) {
    std::string s = "#!/bin/bash\n# Written by circle-renderer's render grade --class --slurm: one task a student.\n";
    s += "#SBATCH --job-name=circle-renderer-grade\n#SBATCH --array=0-" + std::to_string(tasks - 1) + "\n";
    s += "#SBATCH --output=" + (plan.out / "slurm" / "task-%a.out").string() + "\n";
    if (gpus_per_task > 0) s += "#SBATCH --gres=gpu:" + std::to_string(gpus_per_task) + "\n";
    s += "exec " + quoted(plan.self) + " grade --class-task \"$SLURM_ARRAY_TASK_ID\" --out " + quoted(plan.out.string());
    if (!plan.reference.empty()) s += " --reference " + quoted(plan.reference);
    if (!plan.seed.empty()) s += " --seed " + quoted(plan.seed);
    return s + "\n";
}

json entries_json(const ClassPlan& plan, const std::vector<ClassWork>& all) {
    json list = json::array();
    for (const auto& w : all)
        list.push_back({{"id", w.entry.id}, {"source", w.entry.source}, {"archive", w.entry.archive},
                        {"render_dir", w.render_dir}, {"hash", w.hash}, {"problem", w.problem}, {"status", w.status}});
    return {{"class_dir", plan.class_dir}, {"reference", plan.reference}, {"seed", plan.seed}, {"entries", list}};
}

}  // namespace

int run_slurm(const GradeArgs& a) {
    const ClassPlan plan = make_plan(a);
    const std::vector<ClassWork> all = prepare_all(plan);
    if (all.empty()) throw std::invalid_argument("--class '" + a.class_dir + "' has no entries");
    const int gpus = parse_whole_number(a.slurm_gpus, "--slurm-gpus", 0, 16, "use a whole number (0: build only)");
    fs::create_directories(plan.out / "slurm");
    write_text_file((plan.out / "entries.json").string(), entries_json(plan, all).dump(2) + "\n");
    const fs::path script = plan.out / "grade_array.sh";
    write_text_file(script.string(), array_script(plan, all.size(), gpus));
    std::vector<std::string> cmd = {"sbatch"};
    for (const std::string& o : split_words(a.slurm)) cmd.push_back(o);
    cmd.push_back(script.string());
    const student::CapturedRun r = student::run_captured(cmd, 120);
    std::smatch m;
    const std::regex submitted(R"(Submitted batch job (\d+))");
    if (r.exit_code != 0 || !std::regex_search(r.output, m, submitted))
        throw std::runtime_error("sbatch did not take the job array (" + r.exit_text + "): " + r.output);
    std::printf("render grade --class --slurm: job array %s submitted, %zu tasks (one a student); script %s\n"
                "when they have run: render grade --collect %s\n",
                m[1].str().c_str(), all.size(), script.c_str(), plan.out.c_str());
    return kExitOk;
}

int run_class_task(const GradeArgs& a) {
    if (a.out_dir.empty()) throw std::invalid_argument("--class-task goes with --out RESULTS");
    ClassPlan plan;
    plan.out = fs::absolute(a.out_dir).lexically_normal();
    const json entries = read_entries(plan.out);
    const int i = parse_whole_number(a.class_task, "--class-task", 0, static_cast<int>(entries["entries"].size()) - 1,
                                     "use an index of RESULTS/entries.json");
    const json& e = entries["entries"][static_cast<size_t>(i)];
    plan.self = a.self;
    plan.reference = a.reference.empty() ? entries.value("reference", "") : a.reference;
    plan.seed = a.seed.empty() ? entries.value("seed", "") : a.seed;
    plan.graded = gpu_count() > 0;
    plan.gpu_count = gpu_count();
    ClassWork w;
    w.entry = ClassEntry{e.value("id", ""), e.value("source", ""), e.value("archive", false)};
    w.render_dir = e.value("render_dir", "");
    w.hash = e.value("hash", "");
    w.problem = e.value("problem", "");
    w.status = e.value("status", "");
    build_work(w, plan.self);
    if (w.ready_to_grade() && plan.graded) grade_work(w, plan, -1, "");  // the GPU Slurm gave this task
    w.done = true;
    write_result(w, plan);
    std::printf("%s: %s\n", w.entry.id.c_str(), w.status.c_str());
    return kExitOk;
}

int run_collect(const GradeArgs& a) {
    const fs::path out = fs::absolute(a.collect_dir).lexically_normal();
    const json entries = read_entries(out);
    std::vector<std::string> ids;
    for (const auto& e : entries["entries"]) ids.push_back(e.value("id", ""));
    ClassSummary summary;
    summary.mode = "graded by Slurm tasks";
    const std::vector<json> students = collect_results(out, ids, summary.missing);
    write_class_report(out.string(), students, summary);
    size_t failed = 0;
    for (const auto& s : students) {
        const std::string st = s.value("status", "");
        failed += st != "graded" && st.rfind("built (not graded", 0) != 0;
    }
    std::string missing;
    for (const auto& m : summary.missing) missing += (missing.empty() ? " (" : ", ") + m;
    if (!missing.empty()) missing += ")";
    std::printf("render grade --collect: %zu of %zu students have a result, %zu missing%s, %zu failed (their builds or "
                "grades: see the report)\nresults: %s (grades.csv, report.html)\n",
                students.size(), ids.size(), summary.missing.size(), missing.c_str(), failed, out.c_str());
    return kExitOk;
}

}  // namespace cr
