// The student's renderer running beside the session's renderer (the
// reference): after every frame the session renders, the student's renderer
// draws the same frame and the two images are compared. Every failure of the
// student's code (crash, hang, CUDA error, a bad image) is caught here and
// kept as a fault; the session's renderer never notices.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "render/compare.h"
#include "render/student/student_renderer.h"
#include "session.h"

namespace cr::app {

/// What went wrong in the student's code, for the panel.
struct StudentFaultInfo {
    std::string what;  ///< the whole sentence (StudentFault::what())
    std::string call;  ///< the student's call, e.g. "render()"
    int frame = -1;    ///< the course's frame number; -1: during setup
    bool no_gpu = false;  ///< no GPU to run on (NoCudaDeviceError): not a fault of the student's code
};

/// The latest comparison of the student's frame with the reference's.
struct LaneCompare {
    bool valid = false;
    int frame = 0;              ///< the course's frame number (0 = first)
    std::string reference;      ///< the reference renderer's name
    CompareStats stats;         ///< strict rule decides stats.pass
    bool pass_course = false;   ///< at most kAllowedMismatches pixels beyond 0.1
};

/// The student's renderer and its latest frame; see the file comment.
class StudentLane {
public:
    enum class State {
        Empty,    ///< no library loaded
        Ready,    ///< loaded; runs with the next frame
        Running,  ///< frames are coming
        Faulted,  ///< stopped after a fault, until restart_worker() or a new build
    };
    /// Uses `library` from now on (the previous renderer and its worker are
    /// stopped). A failure to start (no worker program) becomes a fault.
    /// With `standin` set (tests without a GPU), that project renderer runs
    /// in the library's place.
    void load(const std::string& library, double call_timeout_s, const std::string& standin = "");
    /// Drops the renderer (the lane becomes Empty).
    void unload();
    /// Stops the worker and clears the fault; the next sync() sets the
    /// student's renderer up again at the session's frame.
    void restart_worker();
    /// Renders the frame the session shows, when not done yet, and compares
    /// it with the session renderer's image. Returns true when it rendered a
    /// new frame (false when nothing was due, or on a fault).
    bool sync(Session& s);

    State state() const { return state_; }
    const StudentFaultInfo& fault() const { return fault_; }
    /// The student's last image (empty before the first frame).
    const Image& image() const { return image_; }
    /// Bumps with every new student image.
    int image_version() const { return image_version_; }
    const LaneCompare& compare() const { return compare_; }
    /// Pixels beyond 1e-4 in each of the last frames (oldest first), for a plot.
    const std::vector<float>& mismatch_history() const { return mismatch_history_; }
    /// The student's stage series since it was last set up (course method).
    const std::vector<StageSeries>& stages() const { return log_.stages; }
    const FrameTimes& stage_sums() const { return log_.sums; }
    /// Where the student's printf output goes ("" when nothing is loaded).
    std::string log_path() const { return student_ ? student_->log_path() : ""; }
    /// Frames rendered by this lane since the last load.
    int frames_rendered() const { return frames_rendered_; }

private:
    /// Sets the renderer up at the session's scene, size and frame - 1.
    void setup_for(const Session& s, int target);
    void record_fault(const std::exception& e, const std::string& during);
    void compare_with(Session& s, int target);

    std::unique_ptr<Renderer> renderer_;
    student::StudentRenderer* student_ = nullptr;  ///< renderer_ as the student's (null for a stand-in)
    State state_ = State::Empty;
    StudentFaultInfo fault_;
    Image image_;
    int image_version_ = 0;
    LaneCompare compare_;
    std::vector<float> mismatch_history_;
    StageLog log_;
    std::string timing_label_;  ///< timing_label_of the renderer, taken when it was set up
    int frames_rendered_ = 0;
    int synced_image_version_ = -1;  ///< the session image this lane last followed
    int setup_version_ = -1;         ///< the session setup the renderer is set up for
};

}  // namespace cr::app
