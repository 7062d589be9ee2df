// The correctness part of `render grade` (render/cli/grade.cpp): the scenes
// a grade draws (snowsingle from the one snow.par both sides use) and the
// checks, with the live references drawn on a background thread while the
// student's renderer draws on the GPU.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "render/core/circles.h"
#include "render/core/image.h"
#include "render/core/renderer.h"
#include "render/student/course_folder.h"

namespace cr {

/// One check: `scene` with `seed`, frame 0 at width x height pixels.
struct CheckJob {
    std::string scene;
    uint32_t seed = 0;
    int width = 1024, height = 1024;
};

/// A check's verdict under the course's rule (a color off by more than 0.1,
/// at most 5 pixels): `why` when it failed; `warning` when the frame drawn
/// again changed (a race the course's single run may pass or fail by luck).
struct GradeCheck {
    bool pass = false;
    /// The renderer did not return within the time limit here, or hung in an
    /// earlier check (then this one was not run: run_grade_checks runs a
    /// renderer that hung no more).
    bool hung = false;
    std::string why, warning;
    /// When it failed on a mismatch: the first mismatching pixels and the
    /// story of the first (describe_mismatches), and the heat map of the error.
    std::string story;
    Image diff;
};

/// The scenes of a grade. snowsingle reads one snow.par on both sides: the
/// student's folder's own, else ./snow.par, else the project's stand-in,
/// written in the course's format. That file is linked (or written) as
/// `scratch`/snow.par, where the course's render_ref runs. Thread-safe after
/// construction (make() only reads).
class GradeScenes {
public:
    /// Throws SceneFileError for a snow.par that cannot be read.
    GradeScenes(const student::CourseFolder& folder, const std::filesystem::path& scratch);
    /// The built-in scene `name` with `seed` (snowsingle: the flakes above).
    Scene make(const std::string& name, uint32_t seed) const;
    /// Which snow.par each side used, in one line for the report.
    const std::string& particle_note() const { return note_; }

private:
    Scene snowsingle_;
    std::string note_;
};

/// The checks reported apart from the score: the other 6 scenes at
/// 1024x1024, then rgb, rand10k, pattern and snowsingle at 1000x600 and 257x129.
std::vector<CheckJob> extra_check_jobs();

/// Runs `jobs` in order on `student` (GPU) while one background thread makes
/// each job's scene and its live reference (make_live_reference: the `cpu`
/// renderer), at most two jobs ahead. A StudentFault fails that check (with
/// its message) and the next check starts a fresh worker; after a call that
/// did not return in time (StudentFault::hung) the remaining checks are not
/// run (each would wait the whole time limit again) and say so.
std::vector<GradeCheck> run_grade_checks(Renderer& student, const std::vector<CheckJob>& jobs, const GradeScenes& scenes);

}  // namespace cr
