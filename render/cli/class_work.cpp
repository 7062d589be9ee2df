// The pieces of a class grade (class_work.h).
#include "render/cli/class_work.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "render/core/output_file.h"
#include "render/options.h"
#include "render/student/course_folder.h"
#include "render/student/process.h"
#include "render/student/student_build.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace cr {

namespace {

constexpr double kBuildTimeout = 1800, kGradeTimeout = 3600;

json read_json(const fs::path& p) {
    std::ifstream in(p);
    if (!in) return nullptr;
    try {
        return json::parse(in);
    } catch (const json::exception&) {
        return nullptr;
    }
}

/// The last `lines` lines of `text` (a final newline ends the last line;
/// all of `text` when it has no more).
std::string tail(const std::string& text, size_t lines) {
    size_t pos = text.size();
    for (size_t n = 0; n <= lines; ++n) {  // the newline before the first line kept
        if (pos == 0) return text;
        pos = text.rfind('\n', pos - 1);
        if (pos == std::string::npos) return text;
    }
    return text.substr(pos + 1);
}

/// "course layout A (...): ... (your circleRenderer.h: ...)" of a course
/// folder, as --build-only says it, built or not ("" when it is not one).
std::string layout_of(const std::string& render_dir) {
    if (render_dir.empty()) return "";
    try {
        const student::CourseFolder f = student::read_course_folder(render_dir);
        return student::layout_label(f.layout) + " (" + f.layout.evidence + ")";
    } catch (const std::exception&) {
        return "";
    }
}

ClassWork prepare(const ClassEntry& e, const fs::path& out) {
    ClassWork w;
    w.entry = e;
    std::string root = e.source;
    if (e.archive) {
        root = (out / "unpacked" / e.id).string();
        try {
            unpack_archive(e.source, root);
        } catch (const std::exception& ex) {
            w.problem = ex.what();
            w.status = "bad archive";
            return w;  // no hash: tried again on every run
        }
    }
    w.render_dir = find_render_folder(root);
    if (w.render_dir.empty()) {
        w.problem = "no course render/ folder (no cudaRenderer.cu) in " + fs::path(e.source).filename().string();
        w.status = "no course folder";
        w.hash = student::sha256_hex(w.problem);  // the same verdict again on a rerun, unless the entry changes
        return w;
    }
    w.hash = student::folder_content_hash(w.render_dir);
    return w;
}

}  // namespace

ClassPlan make_plan(const GradeArgs& a) {
    ClassPlan p;
    p.out = fs::absolute(a.out_dir).lexically_normal();
    p.class_dir = a.class_dir;
    p.self = a.self;
    p.reference = a.reference;
    p.seed = a.seed;
    std::vector<std::string> skipped;
    p.entries = list_class(a.class_dir, skipped);
    for (const auto& s : skipped) std::fprintf(stderr, "render grade --class: skipped '%s' (neither a folder nor an archive)\n", s.c_str());
    const fs::path class_abs = fs::absolute(a.class_dir).lexically_normal();
    if (p.out == class_abs || p.out.string().rfind(class_abs.string() + "/", 0) == 0)
        throw std::invalid_argument("--out '" + a.out_dir + "' is inside the class folder: give a folder beside it "
                                    "(nothing in the class folder is changed)");
    fs::create_directories(p.out);
    return p;
}

std::vector<ClassWork> prepare_all(const ClassPlan& plan) {
    std::vector<ClassWork> all;
    for (const auto& e : plan.entries) all.push_back(prepare(e, plan.out));
    return all;
}

std::string ClassPlan::ref_times_of(int gpu) const {
    const fs::path f = out / ("tref_gpu" + std::to_string(gpu) + "_start.json");
    return ref_times.contains(std::to_string(gpu)) && fs::exists(f) ? f.string() : "";
}

void ClassPlan::set_reference(int gpu, const std::string& when, const json& times) {
    ref_times[std::to_string(gpu)][when] = times;
}

json ClassPlan::reference_json() const {
    json out = json::array();
    for (const auto& [gpu, t] : ref_times.items()) {
        json g = t;
        g["gpu"] = std::stoi(gpu);
        out.push_back(g);
    }
    return out;
}

std::string ClassPlan::mode_text() const {
    if (!graded) return "built only: no GPU here (grades need a CUDA GPU)";
    return "graded on " + std::to_string(gpu_count) + " GPU" + (gpu_count == 1 ? "" : "s") +
           ", one student at a time on each";
}

std::vector<std::string> ClassPlan::entry_ids() const {
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.id);
    return ids;
}

std::vector<ClassWork> ClassPlan::still_to_grade(const std::vector<ClassWork>& all) const {
    std::vector<ClassWork> todo;
    for (const auto& w : all) {
        const json old = read_json(out / (w.entry.id + ".json"));
        const bool same = old.is_object() && old.value("final", false) && old.value("hash", "") == w.hash &&
                          old.value("graded", false) == graded && !w.hash.empty();
        if (!same) todo.push_back(w);
    }
    return todo;
}

void merge_into(std::vector<ClassWork>& all, const std::vector<ClassWork>& done) {
    for (const auto& d : done)
        for (auto& w : all)
            if (w.entry.id == d.entry.id) w = d;
}

void build_work(ClassWork& w, const std::string& self) {
    if (!w.problem.empty()) {
        w.done = true;
        return;
    }
    try {
        const student::CapturedRun r = student::run_captured({self, "--student", w.render_dir, "--build-only"}, kBuildTimeout);
        w.build_log = r.output;
        w.built = !r.timed_out && r.exit_code == 0;
        if (!w.built) {
            w.status = r.timed_out ? "build timed out" : "build failed";
            w.done = true;
        } else {
            w.status = "built (not graded: no GPU here)";
        }
    } catch (const student::ProcessError& e) {
        w.build_log = e.what();
        w.status = "build failed";
        w.done = true;
    }
}

void grade_work(ClassWork& w, const ClassPlan& plan, int gpu, const std::string& ref_times) {
    const fs::path dir = plan.out / w.entry.id;
    fs::create_directories(dir);
    std::vector<std::string> cmd = {plan.self, "grade", "--student", w.render_dir, "--json", (dir / "grade.json").string(),
                                    "--artifacts", dir.string()};
    if (!ref_times.empty()) cmd.insert(cmd.end(), {"--ref-times", ref_times});
    else if (!plan.reference.empty()) cmd.insert(cmd.end(), {"--reference", plan.reference});
    if (!plan.seed.empty()) cmd.insert(cmd.end(), {"--seed", plan.seed});
    std::vector<std::string> env;
    if (gpu >= 0) env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));
    fs::remove(dir / "grade.json");
    const auto t0 = std::chrono::steady_clock::now();
    student::CapturedRun r;
    try {
        r = student::run_captured(cmd, kGradeTimeout, "", env);
    } catch (const student::ProcessError& e) {
        r.output = e.what();
    }
    w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    w.gpu = gpu;
    w.grade_log = tail(r.output, 40);
    if (r.term_signal == SIGINT) return;  // interrupted: no result, graded again next time
    w.grade = read_json(dir / "grade.json");
    w.status = w.grade.is_object() && r.exit_code == 0 ? "graded"
               : r.timed_out                            ? "grade timed out"
                                                        : "grade failed (" + r.exit_text + ")";
    if (!w.grade.is_object()) w.grade = nullptr;
    w.done = true;
}

json measure_reference_on(const ClassPlan& plan, int gpu, const std::string& when) {
    const fs::path file = plan.out / ("tref_gpu" + std::to_string(gpu) + "_" + when + ".json");
    std::vector<std::string> cmd = {plan.self, "grade", "--measure-reference", "--json", file.string()};
    if (!plan.reference.empty()) cmd.insert(cmd.end(), {"--reference", plan.reference});
    try {
        student::run_captured(cmd, kGradeTimeout, plan.particles_dir, {"CUDA_VISIBLE_DEVICES=" + std::to_string(gpu)});
    } catch (const student::ProcessError&) {
    }
    const json j = read_json(file);
    return j.is_object() && j.contains("scenes") ? j["scenes"] : json::object();
}

void write_result(const ClassWork& w, const ClassPlan& plan) {
    const json result = {{"id", w.entry.id},
                         {"source", w.entry.source},
                         {"render_dir", w.render_dir},
                         {"hash", w.hash},
                         {"final", true},
                         {"graded", plan.graded},
                         {"status", w.status},
                         {"problem", w.problem},
                         {"layout", layout_of(w.render_dir)},
                         {"gpu", w.gpu},
                         {"seconds", w.seconds},
                         {"build", {{"ok", w.built}, {"log", w.build_log}}},
                         {"grade", w.grade},
                         {"grade_log", w.grade_log}};
    write_text_file((plan.out / (w.entry.id + ".json")).string(), result.dump(2) + "\n");
}

std::vector<json> collect_results(const fs::path& out, const std::vector<std::string>& ids, std::vector<std::string>& missing) {
    std::vector<json> students;
    for (const auto& id : ids) {
        const json j = read_json(out / (id + ".json"));
        if (j.is_object()) students.push_back(j);
        else missing.push_back(id);
    }
    return students;
}

void ClassProgress::built(const ClassWork& w) {
    std::lock_guard<std::mutex> lock(m_);
    ++built_;
    std::fprintf(stderr, "[%zu/%zu built] %s: %s\n", built_, students_, w.entry.id.c_str(),
                 w.problem.empty() ? (w.built ? "built" : w.status.c_str()) : w.problem.c_str());
}

void ClassProgress::grading(const std::string& id, int gpu) {
    std::lock_guard<std::mutex> lock(m_);
    now_[static_cast<size_t>(std::max(0, gpu)) % now_.size()] = id;
}

std::string ClassProgress::eta() const {
    if (graded_ == 0) return "";
    const double each = grade_seconds_ / static_cast<double>(graded_);
    const double left = each * static_cast<double>(students_ - std::min(students_, graded_)) / std::max(1, gpus_);
    char buf[48];
    std::snprintf(buf, sizeof buf, "; about %.0f s left", std::ceil(left));
    return buf;
}

void ClassProgress::graded(const ClassWork& w, int gpu) {
    std::lock_guard<std::mutex> lock(m_);
    ++graded_;
    grade_seconds_ += w.seconds;
    now_[static_cast<size_t>(std::max(0, gpu)) % now_.size()].clear();
    std::string running;
    for (size_t g = 0; g < now_.size(); ++g)
        if (!now_[g].empty()) running += (running.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(g) + ": " + now_[g];
    const int total = w.grade.is_object() ? w.grade.value("total", -1) : -1;
    std::fprintf(stderr, "[%zu/%zu graded] %s on GPU %d: %s%s in %.1f s%s%s\n", graded_, students_, w.entry.id.c_str(), gpu,
                 w.status.c_str(), total >= 0 ? (", " + std::to_string(total) + "/72").c_str() : "", w.seconds,
                 running.empty() ? "" : ("; now " + running).c_str(), eta().c_str());
}

}  // namespace cr
