// The student's renderer running beside the session's renderer (the
// reference), on a thread of its own: the window never waits for the
// student's code. When the lane has room (kFramesInFlight: one frame drawn,
// one waiting) and the session shows a new frame, sync() hands the lane
// thread that frame (the scene when it must set up again, or the steps to
// catch up, the size, the frame number and a copy of the reference's image);
// the lane thread draws it with the student's renderer and compares it with
// that copy; a later sync() picks the result up. So the student's image
// updates at its own pace ("student: N frames/s") while the window keeps
// its frame rate, a hang shows as "render() has not returned for S s (frame
// N)" while the window keeps drawing, and loading, unloading and restarting
// a worker (seconds, for a first CUDA context) happen on the lane thread.
// Every failure of the student's code (crash, hang, CUDA error, a bad image)
// is caught there and kept as a fault; the session's renderer never notices.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "render/compare.h"
#include "reference_snapshot.h"
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

/// The student's renderer and its latest frame; see the file comment. All
/// members are called from the window's thread.
class StudentLane {
public:
    using Clock = std::chrono::steady_clock;
    enum class State {
        Empty,    ///< no library loaded
        Ready,    ///< loaded; runs with the next frame
        Running,  ///< frames are coming
        Faulted,  ///< stopped after a fault, until restart_worker() or a new build
    };
    StudentLane();
    /// Kills a worker that is still busy and joins the lane thread.
    ~StudentLane();
    StudentLane(const StudentLane&) = delete;
    StudentLane& operator=(const StudentLane&) = delete;

    /// Uses `library` from now on (a busy previous worker is killed, the
    /// renderer is replaced on the lane thread). A failure to start (no
    /// worker program) becomes a fault. With `standin` set (tests without a
    /// GPU), that project renderer runs in the library's place.
    void load(const student::StudentOptions& options, const std::string& standin = "");
    /// Drops the renderer (the lane becomes Empty at once; its worker ends on the lane thread).
    void unload();
    /// Stops the worker (at once, also in a call that hangs) and clears the
    /// fault; the student's renderer is set up again at the session's frame.
    void restart_worker();
    /// Picks up the lane thread's finished frame, if any, and hands it the
    /// session's current frame when it is idle. Returns true when a new
    /// student frame arrived (false when none, or on a fault).
    bool sync(Session& s);
    /// Frames sync() posts before the first of them is drawn: the second
    /// waits in the queue, so the lane starts it as soon as it is free
    /// instead of when the window's next frame posts it (on the H200 that
    /// idle time was about 4 ms of each student frame).
    static constexpr int kFramesInFlight = 2;
    /// At most `frames_per_s` student frames a second from now on (0: as
    /// many as the window posts, one per window frame). Averaged, not a
    /// minimum interval: a window at 150 frames/s with a limit of 110 posts
    /// on 110 of its 150 frames, not on every second one.
    void set_max_rate(double frames_per_s) { max_rate_ = frames_per_s > 0 ? frames_per_s : 0; }
    double max_rate() const { return max_rate_; }
    /// True while a posted frame is drawn or waits to be (no "drawn" marker yet).
    bool busy() const { return in_flight_ > 0; }
    /// Frames posted and not yet drawn (at most kFramesInFlight).
    int frames_in_flight() const { return in_flight_; }
    /// "render() has not returned for 3.2 s (frame 12)" once a frame has been
    /// busy for longer than `after_s`, else "".
    std::string waiting_line(double after_s = 1.0) const;
    /// Student frames per second over the last second or so (0 before two).
    double frames_per_second() const;

    State state() const { return state_; }
    const StudentFaultInfo& fault() const { return fault_; }
    /// The student's last image (empty before the first frame).
    const Image& image() const { return image_; }
    /// image() as RGBA8, top row first (to_rgb8_top_down with alpha), made off
    /// the window's thread: the texture upload takes it as it is.
    const std::vector<uint8_t>& display_rgba8() const { return display_rgba8_; }
    /// The reference's image of the same frame (what image() was compared with).
    const Image& reference_image() const { return reference_; }
    /// Bumps with every new student image.
    int image_version() const { return image_version_; }
    const LaneCompare& compare() const { return compare_; }
    /// Pixels beyond 1e-4 in each of the last frames (oldest first), for a plot.
    const std::vector<float>& mismatch_history() const { return mismatch_history_; }
    /// The student's stage series since it was last set up (course method).
    const std::vector<StageSeries>& stages() const { return log_.stages; }
    const FrameTimes& stage_sums() const { return log_.sums; }
    /// Where the student's printf output goes ("" when nothing is loaded).
    const std::string& log_path() const { return log_path_; }
    /// Jobs posted to the lane thread and not yet started (at most
    /// kFramesInFlight while frames come).
    size_t queued_jobs() const {
        std::lock_guard<std::mutex> lock(m_);
        return jobs_.size();
    }
    /// Image buffers kept for the next frames to reuse (at most 6).
    size_t pooled_images() const {
        std::lock_guard<std::mutex> lock(m_);
        return pool_.size();
    }
    /// Frames rendered by this lane since the last load.
    int frames_rendered() const { return frames_rendered_; }
    /// Of those, the frames for which the student's renderer was set up again
    /// (any new setup of the session: scene, size, renderer, restart; a
    /// restarted worker; or the session went back in time); a lane that fell
    /// behind catches up with advanceAnimation() calls instead.
    int setups() const { return setups_; }
    /// The lane thread's mean ms per student frame since the last load, in
    /// the order: set up or catch up, clear + advance + render, reading the
    /// image back, comparing it with the reference (zeros before a frame).
    std::array<double, 4> mean_phases_ms() const;

private:
    /// Work for the lane thread.
    struct Job {
        enum class Kind { Load, Unload, Restart, Frame } kind = Kind::Frame;
        int generation = 0;                       ///< results of older generations are dropped
        student::StudentOptions options;          ///< Load
        std::string standin;                      ///< Load
        std::optional<Scene> scene;               ///< Frame: set when the renderer must set up again
        int catch_up = 0;                         ///< Frame, no scene: steps to advance first (the lane fell behind)
        int width = 0, height = 0, target = 0;    ///< Frame: the session's image shows `target` steps
        Image reference;                          ///< Frame: the reference's image of that frame, or
        std::shared_ptr<ReferenceSnapshot> snapshot;  ///< Frame: ... its copy on the GPU (read by the comparison)
        std::string reference_name, scene_label;
    };
    /// What the lane thread made of a job.
    struct Result {
        Job::Kind kind = Job::Kind::Frame;
        int generation = 0;
        bool ok = true;
        StudentFaultInfo fault;
        Image image, reference;
        std::shared_ptr<ReferenceSnapshot> snapshot;  ///< the reference, until read into `reference`
        student::StudentRenderer::SharedImage shared;  ///< the student's frame, until copied into `image`
        std::vector<uint8_t> display_rgba8;  ///< image as the window's texture takes it (top row first)
        std::vector<StageTime> times;
        std::string timing_label, log_path, scene_label;
        LaneCompare compare;
        int width = 0, height = 0;
        bool set_up = false;  ///< the renderer was set up again for this frame
        /// Frame: only says the lane is free for the next frame (its image
        /// is being compared; the whole result follows).
        bool rendered_only = false;
        std::array<double, 4> phases_ms{};  ///< set up or catch up, the frame's calls, image, compare
    };

    void post(Job job);
    void thread_main();
    /// Hands a rendered frame's comparison to a task of its own (after the
    /// one before it ended, so results stay in order) and says the lane is free.
    void compare_later(Result r);
    void finish_compare();
    /// Removes the frames posted and not yet started (unload, restart).
    void drop_queued_frames();
    /// On the comparison's task, in two pairs that each run on two threads
    /// (so a 1024x1024 frame's four 16 MB passes cost two, not four, in
    /// the lane's pace; each pass is itself split into bands of rows on up
    /// to four threads, render/core/bands.h): copy_out() copies the student's frame out of the
    /// worker's memory while read_reference() reads the reference's
    /// snapshot; then compare() compares while convert() makes the
    /// texture's RGBA8 pixels (compare_task runs them). guarded() logs an
    /// exception of any; the frame then has no comparison, except when only
    /// the conversion failed (the window converts the image itself then).
    void compare_task(Result& r, std::promise<void>& copied);
    void copy_out(Result& r);
    void read_reference(Result& r);
    void compare(Result& r);
    void convert(Result& r);
    template <class F>
    bool guarded(const char* what, F&& f);
    /// An image buffer from the pool (empty when none), and one given back:
    /// 16 MB frames reuse their memory instead of faulting in new pages.
    Image pooled_image();
    void recycle(Image&& image);
    Result run(Job& job);
    void run_frame(Job& job, Result& r);
    void take(Result& r, Session& s);
    void post_frame(Session& s);
    /// The reference's current frame for a job: a GPU snapshot when the
    /// session's renderer keeps its image on the GPU, else a host copy.
    void take_reference(Session& s, Job& j);
    void kill_busy_worker();
    static StudentFaultInfo fault_of(const std::exception& e, const std::string& during);

    // ---- the lane thread's (under m_ only where marked) ----
    std::unique_ptr<Renderer> renderer_;
    student::StudentRenderer* student_ = nullptr;  ///< renderer_ as the student's (null for a stand-in); under m_
    std::string timing_label_;
    mutable std::mutex m_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;        ///< under m_
    std::deque<Result> results_;  ///< under m_
    std::vector<Image> pool_;     ///< under m_
    std::vector<std::vector<uint8_t>> rgba_pool_;  ///< under m_: display_rgba8 buffers to reuse
    bool stop_ = false;           ///< under m_
    std::future<void> comparing_;  ///< the last frame's comparison (lane thread)
    std::future<void> copied_;     ///< its image is out of the worker's shared memory (lane thread)

    // ---- the window thread's ----
    std::vector<std::shared_ptr<ReferenceSnapshot>> snapshots_;  ///< free when only this holds one
    int generation_ = 0;
    int in_flight_ = 0;              ///< frames posted and not yet drawn
    Clock::time_point job_start_{};  ///< when the frame being drawn started
    int job_frame_ = 0;              ///< its frame
    int next_frame_ = 0;             ///< the frame of the last one posted
    double max_rate_ = 0;            ///< set_max_rate()
    double post_credit_ = 1;         ///< frames that may be posted now under max_rate_ (at most kFramesInFlight)
    Clock::time_point credit_time_ = Clock::now();  ///< when post_credit_ was last brought up to date
    /// Adds the credit earned since the last call; true when a frame may be posted now.
    bool rate_allows_post();
    std::vector<Clock::time_point> frame_times_;  ///< arrival of the last student frames
    State state_ = State::Empty;
    StudentFaultInfo fault_;
    Image image_, reference_;
    std::vector<uint8_t> display_rgba8_;
    int image_version_ = 0;
    LaneCompare compare_;
    std::vector<float> mismatch_history_;
    StageLog log_;
    std::string log_path_;
    int frames_rendered_ = 0;
    int setups_ = 0;
    std::array<double, 4> phase_sums_ms_{};
    int synced_image_version_ = -1;  ///< the session image this lane last followed
    int lane_setup_version_ = -1;    ///< the session setup the lane's renderer is set up for
    int lane_frame_ = -1;            ///< the lane renderer's frame() after its last frame

    std::thread thread_;  ///< last: starts once the members above exist
};

}  // namespace cr::app
