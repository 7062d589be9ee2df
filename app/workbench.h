// The student's workbench: which folder is loaded, its builds (at start, on
// Load, and again whenever a source file is saved), the student's renderer
// beside the session's (StudentLane), and the status line. Builds run in the
// background; the window keeps drawing. A failed build keeps the previous
// one running and keeps the compiler's messages for the panel.
#pragma once

#include <chrono>
#include <string>

#include "background_task.h"
#include "build_job.h"
#include "settings.h"
#include "render/renderer_factory.h"
#include "student_lane.h"

namespace cr::app {

/// How the workbench is set up (from the command line).
struct WorkbenchOptions {
    double call_timeout_s = kDefaultStudentTimeout;  ///< a student call that takes longer is a hang
    unsigned long long memory_bytes = 0;  ///< the student's device-memory budget (0: the default, student_memory_budget)
    std::string arch_flags;     ///< nvcc -gencode flags ("" = the harness's default)
    double max_student_fps = 0;  ///< at most this many student frames a second (0: one per window frame)
    int gpu = -1;                ///< the GPU the student's renderer runs on (-1: the window's)
    bool use_settings = true;   ///< read and write settings_path()
};

/// The longest time between two rendered frames while a build ran and until
/// the new build drew its first frames, per kind of build (the first build of
/// a folder, or a rebuild), split into the compile (until the outcome is in)
/// and the switch (starting the new build's worker, its first frames).
class GapMeter {
public:
    using Clock = std::chrono::steady_clock;
    /// Longest gaps of one kind of build, in ms (-1: not measured).
    struct Gaps {
        double compile_ms = -1, switch_ms = -1;
        double longest() const { return compile_ms > switch_ms ? compile_ms : switch_ms; }
    };
    /// A build starts (`rebuild`: not the first one of the folder).
    void begin(bool rebuild);
    /// The build's outcome is in; the measurement ends `frames_after` rendered frames later.
    void end_after(int frames_after);
    /// A frame was rendered at `now`.
    void frame(Clock::time_point now);
    const Gaps& first_build() const { return first_; }
    const Gaps& rebuild() const { return rebuild_gaps_; }
    /// Frames rendered while measuring.
    int frames_measured() const { return frames_; }

private:
    bool active_ = false, rebuild_ = false;
    int frames_left_ = -1;  ///< frames until the end; -1: the build still runs
    Clock::time_point last_{};
    bool have_last_ = false;
    Gaps first_, rebuild_gaps_;
    int frames_ = 0;
};

/// See the file comment. Lines for automated runs go to stdout, each
/// starting "workbench: ".
class Workbench {
public:
    enum class Status { None, Building, Ready, BuildFailed, Crashed, CannotRun, NoBuild };
    explicit Workbench(WorkbenchOptions options = {});

    /// Loads the student's `folder`: remembers it, watches its files, builds it.
    void load(const std::string& folder);
    /// Once a loop iteration: takes a finished build, starts a rebuild when
    /// a file changed.
    void tick();
    /// After the session rendered a frame: the student's renderer follows;
    /// returns true when the student's frame fails `pause_tolerance`'s rule
    /// (for "pause at the first mismatching frame").
    bool after_frame(Session& s, float pause_tolerance);
    /// Counts a frame the session rendered (for the frame-gap measure).
    void frame_rendered(GapMeter::Clock::time_point now) { gaps_.frame(now); }
    /// Restarts the student's worker after a fault.
    void restart_worker() { lane_.restart_worker(); }
    /// Runs the current build under compute-sanitizer's `tool` (memcheck,
    /// racecheck, synccheck, initcheck) on the session's scene and size,
    /// frames 0..F (F the frame shown, at most 10), in a background thread
    /// (the window keeps drawing); the report arrives in sanitize_lines().
    /// Does nothing while a build or another sanitizer run is going.
    void start_sanitize(const Session& s, const std::string& tool);
    bool sanitizing() const { return sanitize_job_.running(); }
    double sanitize_seconds() const { return sanitize_job_.elapsed_seconds(); }
    /// The last sanitizer report, a line each (empty before the first).
    const std::vector<std::string>& sanitize_lines() const { return sanitize_lines_; }
    /// True once a build has succeeded (so there is something to sanitize).
    bool has_build() const { return !built_.library.empty(); }

    Status status() const;
    /// The status line, e.g. "building (12.3 s)", "ready", "build failed".
    std::string status_line() const;
    /// A second line saying more (where the build is, why it cannot run, ...).
    const std::string& detail() const { return detail_; }
    /// The compiler's messages of the last failed build ("" after a success).
    const std::string& compiler_messages() const { return messages_; }
    /// compiler_messages() with "FOLDER/" of the loaded folder removed, so
    /// the student's file:line fits the panel (made when they change).
    const std::string& compiler_messages_shown() const { return messages_shown_; }
    /// The first line of compiler_messages_shown() naming an error ("" when none).
    const std::string& first_error_line() const { return first_error_; }
    const std::string& folder() const { return folder_; }
    bool building() const { return job_.running(); }
    const StudentLane& lane() const { return lane_; }
    Settings& settings() { return settings_; }
    /// A problem with the settings file ("" when none).
    const std::string& settings_error() const { return settings_error_; }
    /// Builds finished since start (failed ones included).
    int builds_finished() const { return builds_finished_; }
    const GapMeter& gaps() const { return gaps_; }
    /// Prints the end-of-run lines (gaps, the last comparison) to stdout.
    void print_summary() const;

private:
    void start_build();
    void take_outcome(const BuildOutcome& o);
    void use_library(const BuildOutcome& o);
    /// Sets the compiler's messages and what the panel shows of them.
    void set_messages(std::string messages);

    WorkbenchOptions options_;
    std::string folder_;
    Settings settings_;
    std::string settings_error_;
    SourceWatcher watcher_;
    BuildJob job_;
    std::string job_folder_;      ///< the folder the running build is of
    bool rebuild_pending_ = false;
    bool had_build_ = false;      ///< a build of this folder finished before (next ones are rebuilds)
    bool last_failed_ = false;    ///< the last build failed (no nvcc, bad folder, compile error)
    std::string fail_summary_;
    std::string messages_;
    std::string messages_shown_;  ///< messages_ relative to folder_
    std::string first_error_;     ///< the first line of messages_shown_ naming an error
    std::string detail_;
    std::string cannot_run_;      ///< why the built library cannot run here ("" when it can)
    StudentLane lane_;
    student::BuildResult built_;  ///< the last successful build
    BackgroundTask<std::vector<std::string>> sanitize_job_;
    std::vector<std::string> sanitize_lines_;
    int builds_finished_ = 0;
    bool wait_announced_ = false;  ///< the lane's current frame was said to be overdue
    GapMeter gaps_;
};

}  // namespace cr::app
