#include "render/grading.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace cr {

const std::vector<std::string>& course_scored_scenes() {
    static const std::vector<std::string> scenes = {"rgb",        "rand10k",   "rand100k", "pattern",
                                                    "snowsingle", "biglittle", "rand1M",   "micro2M"};
    return scenes;
}

int course_scene_score(bool correct, double t, double t_ref) {
    if (!correct) return 0;
    if (t <= 1.2 * t_ref) return kCourseSceneMax;
    if (t > 10 * t_ref) return 2;
    return 2 + static_cast<int>(std::ceil(7.0 * t_ref / t));
}

bool timing_settled(bool correct, double best_t_ms, std::optional<double> t_ref_ms) {
    if (!correct) return true;
    if (!t_ref_ms || *t_ref_ms <= 0) return false;
    if (best_t_ms >= kSteadyTimeMs && course_scene_score(true, best_t_ms, *t_ref_ms) == kCourseSceneMax) return true;
    return best_t_ms > kSettledFloorFactor * *t_ref_ms;
}

bool reference_settled(bool correct, double best_t_ms, double best_t_ref_ms) {
    if (!correct) return true;
    if (best_t_ref_ms <= 0) return false;
    if (best_t_ms > kSettledFloorFactor * best_t_ref_ms) return true;
    return best_t_ref_ms >= kSteadyTimeMs && best_t_ms <= 1.2 * best_t_ref_ms * (1.0 - kSteadySpread);
}

NextRun next_timing_run(const SceneRuns& r) {
    if (!r.ref_given && r.ref_runs == 0) return NextRun::Reference;
    if (r.stu_runs == 0) return NextRun::Student;
    if (!r.t_ms || !r.t_ref_ms) return NextRun::Done;  // a run gave no time: nothing more to learn
    const bool ref_done = r.ref_given || r.ref_runs >= kCourseTimingRuns || reference_settled(r.correct, *r.t_ms, *r.t_ref_ms);
    if (!ref_done) return NextRun::Reference;
    if (r.stu_runs < kCourseTimingRuns && !timing_settled(r.correct, *r.t_ms, r.t_ref_ms)) return NextRun::Student;
    return NextRun::Done;
}

std::optional<double> parse_course_total_ms(const std::string& output) {
    std::optional<double> total;
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        const size_t at = line.find("Total:");
        double ms = 0;
        if (at != std::string::npos && std::sscanf(line.c_str() + at + 6, "%lf", &ms) == 1) total = ms;
    }
    return total;
}

}  // namespace cr
