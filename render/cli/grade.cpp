// `render grade`: the course's grading of a student's renderer
// (COURSE_INTERFACE.md, "The course's grading"): the 8 scored scenes at
// 1024x1024, each checked at frame 0 with a random seed under the course's
// rule (0.1, at most 5 pixels) and rendered three times (a race fails it),
// timed as the minimum Total of 3 runs of frames 0:4 the course's way, and
// scored with the course's formula (render/grading.h) against T_ref. The
// other 6 scenes and two odd sizes are checked too, reported apart.
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>

#include "render/cli/commands.h"
#include "render/compare.h"
#include "render/core/output_file.h"
#include "render/grading.h"
#include "render/options.h"
#include "render/scene_source.h"
#include "render/student/process.h"
#include "render/student/student_renderer.h"

namespace cr {

namespace {

/// One scene's grade.
struct SceneGrade {
    std::string scene;
    uint32_t seed = 0;
    bool correct = false;
    std::string why;        ///< what made it incorrect
    double t_ms = -1, t_ref_ms = -1;
    int score = 0;
};

/// Where T_ref came from.
struct Reference {
    std::string exe;    ///< the course's render_ref ("" = our tiled kernel)
    std::string label;  ///< printed above the table
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

/// The course runs in the student's folder: snowsingle reads its snow.par.
Scene grade_scene(const std::string& name, uint32_t seed, const std::string& dir) {
    const std::string par = dir + "/snow.par";
    const bool has_par = name == "snowsingle" && access(par.c_str(), R_OK) == 0;
    return load_scene(SceneRequest{name, "", has_par ? par : "", seed}).scene;
}

/// The course's check of frame 0 at w x h (course rule), plus the race
/// check (the frame rendered three times must not change). False with `why`.
bool course_correct(Renderer& student, const Scene& s, int w, int h, std::string& why) {
    try {
        const Image img = render_frames(student, s, w, h, 1);
        const std::unique_ptr<Renderer> ref = make_renderer("cpuref");
        const CompareStats st = compare_images(img, render_last_frame(*ref, s, w, h, 1), kCourseTolerance);
        if (!st.pass) {
            why = st.same_size ? std::to_string(st.mismatches_course) + " pixels differ by more than 0.1"
                               : "the image has another size";
            return false;
        }
        const RepeatCheck rc = rerender_compare(student, img, 3);
        if (rc.differing_runs) why = "the output changes between runs (a race in ordering or atomicity)";
        return rc.differing_runs == 0;
    } catch (const student::StudentFault& e) {
        why = e.what();
        return false;
    }
}

/// The course's time: the minimum Total of 3 runs of frames 0:4, each call
/// timed with the host clock after a cudaDeviceSynchronize. -1 on a fault.
double course_time(Renderer& r, const Scene& s) {
    double best = -1;
    try {
        for (int k = 0; k < 3; ++k) {
            r.setup(s, 1024, 1024);
            const double t = run_frames(r, FrameRange{0, 4}, {}, TimingMethod::Course).total_ms;
            best = best < 0 ? t : std::min(best, t);
        }
    } catch (const student::StudentFault&) {
        return -1;
    }
    return best;
}

/// The minimum Total of 3 runs of the course's render_ref on `scene`, run in
/// `dir` as the course's checker runs it; nullopt when it does not run here.
std::optional<double> reference_time(const std::string& exe, const std::string& scene, const std::string& dir) {
    std::optional<double> best;
    for (int k = 0; k < 3; ++k) {
        const student::CapturedRun run =
            student::run_captured({exe, "-r", "cuda", "-b", "0:4", scene, "-s", "1024"}, 600, dir);
        const std::optional<double> t = parse_course_total_ms(run.output);
        if (run.timed_out || run.exit_code != 0 || !t) return std::nullopt;
        best = best ? std::min(*best, *t) : *t;
    }
    return best;
}

/// Which reference times: --reference, else DIR/render_ref if it runs here, else ours.
Reference choose_reference(const GradeArgs& a) {
    std::string exe = a.reference.empty() ? a.student_dir + "/render_ref" : a.reference;
    if (access(exe.c_str(), X_OK) == 0) {
        try {
            if (reference_time(exe, "rgb", a.student_dir))
                return Reference{exe, "reference: the course's " + exe + " (min of 3 runs, as checker.py)"};
        } catch (const student::ProcessError&) {
        }
        std::fprintf(stderr, "render grade: %s does not run here; using this project's tiled kernel instead\n",
                     exe.c_str());
    } else if (!a.reference.empty()) {
        throw std::invalid_argument("--reference '" + a.reference + "' is not an executable file");
    }
    return Reference{"", "reference: this project's tiled kernel timed the course's way, faster than the course's: "
                         "scores are stricter"};
}

SceneGrade grade_scene_of(Renderer& student, const std::string& name, uint32_t seed, const GradeArgs& a,
                          const Reference& ref) {
    SceneGrade g;
    g.scene = name;
    g.seed = seed;
    g.correct = course_correct(student, grade_scene(name, seed, a.student_dir), 1024, 1024, g.why);
    const Scene timed = grade_scene(name, 0, a.student_dir);  // the course times with the default seed
    g.t_ms = course_time(student, timed);
    if (ref.exe.empty()) {
        const std::unique_ptr<Renderer> tiled = make_renderer("tiled");
        g.t_ref_ms = course_time(*tiled, timed);
    } else {
        g.t_ref_ms = reference_time(ref.exe, name, a.student_dir).value_or(-1);
    }
    g.score = g.t_ms > 0 && g.t_ref_ms > 0 ? course_scene_score(g.correct, g.t_ms, g.t_ref_ms) : 0;
    return g;
}

/// The course's total: the sum of the scene scores.
int total_score(const std::vector<SceneGrade>& grades) {
    int total = 0;
    for (const auto& g : grades) total += g.score;
    return total;
}

void print_grade_table(const std::vector<SceneGrade>& grades, const Reference& ref) {
    std::printf("%s\n", ref.label.c_str());
    const std::string rule_line = std::string(86, '-') + "\n";  // the table's width
    const char* rule = rule_line.c_str();
    std::printf("%s| %-12s | %16s | %13s | %5s | %-24s |\n%s", rule, "Scene Name", "Ref Time (T_ref)", "Your Time (T)",
                "Score", "Correct (seed)", rule);
    for (const auto& g : grades) {
        char correct[64];
        std::snprintf(correct, sizeof correct, "%s (%u)", g.correct ? "yes" : "NO", g.seed);
        std::printf("| %-12s | %16.4f | %13.4f | %5d | %-24s |\n", g.scene.c_str(), g.t_ref_ms, g.t_ms, g.score, correct);
    }
    const std::string score = std::to_string(total_score(grades)) + " / " + std::to_string(grades.size() * kCourseSceneMax);
    std::printf("%s| %-64s | %-15s |\n%s", rule, "Total score:", score.c_str(), rule);
    for (const auto& g : grades)
        if (!g.correct) std::printf("%s: incorrect: %s\n", g.scene.c_str(), g.why.c_str());
    std::printf("Times: ms per frame, the minimum Total of 3 runs of frames 0:4 at 1024x1024, each call timed with the "
                "host clock after cudaDeviceSynchronize (the course's method).\n");
}

/// The checks reported apart from the score: the other 6 scenes at 1024,
/// then four scenes at 1000x600 and 257x129. Returns (what, why) of each failure.
std::vector<std::pair<std::string, std::string>> extra_checks(Renderer& student, const GradeArgs& a,
                                                              nlohmann::json& j) {
    std::vector<std::pair<std::string, std::string>> failures;
    auto check = [&](const std::string& scene, int w, int h) {
        std::string why;
        const std::string what = scene + " " + std::to_string(w) + "x" + std::to_string(h);
        std::fprintf(stderr, "also checking %s ...\n", what.c_str());
        const bool ok = course_correct(student, grade_scene(scene, 0, a.student_dir), w, h, why);
        j["also_checked"].push_back({{"check", what}, {"pass", ok}, {"why", why}});
        if (!ok) failures.push_back({what, why});
    };
    for (const char* s : {"rgby", "littlebig", "bouncingballs", "fireworks", "hypnosis", "snow"}) check(s, 1024, 1024);
    for (const auto& [w, h] : {std::pair{1000, 600}, std::pair{257, 129}})
        for (const char* s : {"rgb", "rand10k", "pattern", "snowsingle"}) check(s, w, h);
    return failures;
}

}  // namespace

int run_grade(const GradeArgs& a) {
    if (a.student_dir.empty()) throw std::invalid_argument("render grade needs --student DIR (your course's render/ folder)");
    if (!a.json_path.empty()) check_writable(a.json_path);
    const std::unique_ptr<Renderer> student = make_renderer("student", student_context(a.student_dir, a.student_timeout));
    const Reference ref = choose_reference(a);
    const auto& scenes = course_scored_scenes();
    const std::vector<uint32_t> seeds = grading_seeds(a.seed, scenes.size());
    std::vector<SceneGrade> grades;
    nlohmann::json j = {{"student", a.student_dir}, {"reference", ref.label}, {"scenes", nlohmann::json::array()}};
    for (size_t i = 0; i < scenes.size(); ++i) {
        std::fprintf(stderr, "[%zu/%zu] %s: checking (seed %u), timing ...\n", i + 1, scenes.size(), scenes[i].c_str(),
                     seeds[i]);
        grades.push_back(grade_scene_of(*student, scenes[i], seeds[i], a, ref));
        const SceneGrade& g = grades.back();
        j["scenes"].push_back({{"scene", g.scene}, {"seed", g.seed}, {"correct", g.correct}, {"why", g.why},
                               {"time_ms", g.t_ms}, {"ref_time_ms", g.t_ref_ms}, {"score", g.score}});
    }
    print_grade_table(grades, ref);
    const auto failures = extra_checks(*student, a, j);
    const size_t checked = j["also_checked"].size();
    std::printf("Also checked, not scored: the other 6 scenes at 1024x1024 and rgb, rand10k, pattern, snowsingle at "
                "1000x600 and 257x129: %zu of %zu pass\n", checked - failures.size(), checked);
    for (const auto& [what, why] : failures) std::printf("  %s: %s\n", what.c_str(), why.c_str());
    j["total"] = total_score(grades);
    j["max"] = static_cast<int>(grades.size()) * kCourseSceneMax;
    if (!a.json_path.empty()) write_text_file(a.json_path, j.dump(2) + "\n");
    return kExitOk;
}

}  // namespace cr
