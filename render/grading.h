// The course's grading (COURSE_INTERFACE.md, "The course's grading"), for
// `render grade`: the scored scenes, the per-scene score formula, and reading
// the course reference binary's "Total:" line.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace cr {

/// The 8 scenes the course scores, at 1024x1024.
const std::vector<std::string>& course_scored_scenes();

/// Points a scene can give.
constexpr int kCourseSceneMax = 9;

/// Timing runs checker.py makes of each program on a scene (T and T_ref are
/// the minimum of each's).
constexpr int kCourseTimingRuns = 3;

/// The course's score for one scene: 0 when incorrect; 9 when t <= 1.2 t_ref;
/// 2 when t > 10 t_ref; otherwise 2 + ceil(7 t_ref / t). Times in ms (any
/// unit, the same for both); t_ref > 0.
int course_scene_score(bool correct, double t_ms, double t_ref_ms);

/// How far above the course's 10 x T_ref floor one run's T must be before
/// the other timing runs are skipped: they would have to be 20% faster than
/// this one to bring the minimum under the floor.
constexpr double kSettledFloorFactor = 12.5;

/// From this T on (ms), the course's timing runs of one scene agree within
/// 1%: measured on the H200 (2026-12-02, render grade of the `fast` fixture,
/// 3 fresh runs each), the runs of rand100k, snowsingle, biglittle, rand1M
/// and micro2M (2.8-61 ms) spread by at most 0.9%, those of rgb, pattern and
/// rand10k (0.09-0.56 ms) by up to 20%.
constexpr double kSteadyTimeMs = 1.0;

/// True when `render grade` stops timing a scene after this run: an
/// incorrect scene (0 points whatever the time); a best T so far within
/// 1.2 x T_ref (9 points: other runs can only lower the minimum) and of at
/// least kSteadyTimeMs (so they would not move T by more than 1% either);
/// or the best T so far above kSettledFloorFactor x T_ref (2 points, the
/// course's floor being 10 x T_ref, unless a later run were over 20% faster
/// than the best so far). False while T_ref is unknown. Times in ms.
bool timing_settled(bool correct, double best_t_ms, std::optional<double> t_ref_ms);

/// How far apart the runs of one scene may be from kSteadyTimeMs on, as a
/// fraction, for `render grade` to stop timing the reference early: twice the
/// 0.9% the H200's runs spread by (kSteadyTimeMs), so a reference run left
/// out would have to be over 2% faster than the first to change a score.
constexpr double kSteadySpread = 0.02;

/// True when more runs of the reference cannot change a scene's score
/// (more runs can only lower T_ref's minimum, which lowers the score or
/// leaves it): an incorrect scene (0 points); T above kSettledFloorFactor x
/// T_ref (2 points: a lower T_ref keeps it above); or T within 1.2 x T_ref
/// with a margin of kSteadySpread at a steady T_ref (at least kSteadyTimeMs:
/// 9 points unless another reference run were over 2% faster). Times in ms.
bool reference_settled(bool correct, double best_t_ms, double best_t_ref_ms);

/// The timing runs `render grade` has made of one scene so far.
struct SceneRuns {
    bool correct = true;             ///< the scene's check passed
    int ref_runs = 0;                ///< runs of the reference made (checker.py makes 3)
    bool ref_given = false;          ///< T_ref is given (--ref-times): no runs of the reference
    std::optional<double> t_ref_ms;  ///< the minimum Total of the reference's runs so far
    int stu_runs = 0;                ///< runs of the student's renderer made
    std::optional<double> t_ms;      ///< their minimum Total so far

    /// Counts one run of the reference that gave `ms` (its Total) into T_ref.
    void add_reference_run(double ms) { keep_min(t_ref_ms, ms), ++ref_runs; }
    /// Counts one run of the student's renderer that gave `ms` into T.
    void add_student_run(double ms) { keep_min(t_ms, ms), ++stu_runs; }

private:
    static void keep_min(std::optional<double>& best, double ms) { best = best ? std::min(*best, ms) : ms; }
};

/// Which run `render grade` makes next.
enum class NextRun { Reference, Student, Done };

/// The next timing run of a scene, from the runs made so far: one run of the
/// reference, then one of the student's renderer; then the reference's
/// other runs (up to kCourseTimingRuns, as checker.py makes) unless
/// reference_settled says they cannot change the score; then the student's
/// (up to kCourseTimingRuns) unless timing_settled says so. So a scene whose score is decided early costs
/// two runs, not six, and one that is not gets the course's 3 + 3.
NextRun next_timing_run(const SceneRuns& r);

/// The last "Total:" time of the course program's benchmark output
/// ("Total:   1.2345 ms"), in ms; nullopt when there is none.
std::optional<double> parse_course_total_ms(const std::string& output);

}  // namespace cr
