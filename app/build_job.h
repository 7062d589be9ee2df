// The student's build, off the GUI thread: a watcher of the student's source
// files (polled modification times) and a background build with
// cr::student::build_student, so the window keeps drawing while nvcc runs.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "background_task.h"
#include "render/student/student_build.h"

namespace cr::app {

/// Watches the source files of a student's folder (the names build_student
/// takes: .cu, .cpp, .h, .cu_inl, ... at the folder's top level) by polling
/// their names, sizes and modification times a few times a second.
class SourceWatcher {
public:
    using Clock = std::chrono::steady_clock;
    /// Starts watching `dir`; the files as they are now count as seen.
    void watch(const std::string& dir);
    /// Stops watching.
    void clear() { dir_.clear(); }
    /// True once when the files changed since the last call that returned
    /// true (or since watch()) and then stayed the same for one poll, so an
    /// editor's save in several writes gives one rebuild. Polls at most every
    /// kPollSeconds; cheap between polls.
    bool changed(Clock::time_point now);
    static constexpr double kPollSeconds = 0.25;

private:
    /// Names, sizes and modification times of the watched files, one string.
    std::string fingerprint() const;

    std::string dir_;
    std::string seen_;     ///< fingerprint of the last build's inputs
    std::string pending_;  ///< a new fingerprint waiting to be stable
    Clock::time_point next_poll_{};
};

/// What a finished build gave.
struct BuildOutcome {
    enum class Kind { Built, Failed, NoNvcc, BadFolder, Error };
    Kind kind = Kind::Error;
    cr::student::BuildResult result;  ///< when Built
    std::string summary;              ///< one line: what happened
    std::string messages;             ///< the compiler's output (student's paths), when Failed
    double seconds = 0;               ///< wall time of the build, cache look-up included
};

/// The student's build in a background thread (see BackgroundTask).
using BuildJob = BackgroundTask<BuildOutcome>;

/// Runs build_student and turns every way it can end into a BuildOutcome
/// (never throws).
BuildOutcome run_build(const cr::student::BuildOptions& options);

}  // namespace cr::app
