// A student's course-format renderer as a renderer of the project ("student").
//
// The student's library runs in a worker process (render-student-worker):
// every call is a request over a pipe, images come back through shared
// memory, and a crash, a hang, a CUDA error or an image of the wrong size is
// reported as a StudentFault naming the call and the frame, without harm to
// this process or its CUDA context. Timings follow the course's method: the
// host clock around each call, each followed by cudaDeviceSynchronize()
// (Clear, Advance, Render).
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "render/core/renderer.h"
#include "render/student/process.h"
#include "render/student/protocol.h"

namespace cr::student {

/// How a student renderer runs.
struct StudentOptions {
    std::string library;          ///< libstudent.so (build_student)
    std::string worker;           ///< render-student-worker ("" = find_worker())
    std::string log_path;         ///< where the student's prints go ("" = beside the library)
    double call_timeout_s = 30;   ///< a call that takes longer is a hang
    /// The student's device-memory budget in bytes (0: none): an allocation
    /// past it fails inside the student's process and the call is reported
    /// as "your renderer asked for more than N GiB".
    unsigned long long device_memory_bytes = 0;
    /// A command the worker runs under (e.g. compute-sanitizer's), "" for none.
    std::vector<std::string> wrapper;
    /// How long ending the worker may take (a sanitizer writes its report then).
    double quit_wait_s = 5;
    /// After a fault, ask the worker to end (and wait quit_wait_s) rather than
    /// kill it: under a sanitizer, so that it writes its whole report.
    bool end_gently = false;
    /// course_frame times each call as the student's folder's own benchmark
    /// does (BenchmarkTiming::syncs): true, each followed by
    /// cudaDeviceSynchronize() inside the timed part; false (a 2019-2022
    /// benchmark.cpp), the clock read when the call returns, the frame
    /// synchronized (and its errors asked for) after the three calls, outside
    /// the timed part, where the course's binary reads the image back.
    bool course_sync_each_call = true;
    /// The GPU the worker runs on, numbered as this process's CUDA numbers
    /// them (visible_device_for: CUDA_VISIBLE_DEVICES in its environment;
    /// -1: the one this process would use). Another GPU than the window's
    /// keeps a fault of the student's out of the window's driver stall. The
    /// memory budget is still sized from this process's GPU.
    int gpu = -1;
};

/// The CUDA_VISIBLE_DEVICES value that shows a child process GPU `gpu` as
/// this process numbers it: entry `gpu` of this process's own
/// CUDA_VISIBLE_DEVICES list when it has one (a Slurm job's "2,3": GPU 1 is
/// "3"), else the number itself. Past the list: "-1", an id CUDA shows no
/// GPU for (the child then says it finds none).
std::string visible_device_for(int gpu);

/// What went wrong in the student's code (exit code 5): what() is the whole
/// sentence, e.g. "student renderer: CUDA error 700 (cudaErrorIllegalAddress),
/// an illegal memory access was encountered, after render(), frame 0; run it
/// again with --sanitize ...", "student renderer: your code called exit(188)
/// in render(), frame 0, after CUDA error 700 (...) (188 is what exit() keeps
/// of 700)", or "student renderer: crashed (signal 11 (Segmentation fault))
/// in render(), frame 0".
struct StudentFault : std::runtime_error {
    StudentFault(const std::string& what, Call call, int frame, bool hung = false)
        : std::runtime_error(what), call(call), frame(frame), hung(hung) {}
    Call call;
    int frame;  ///< the frame the call belonged to (-1: setup)
    bool hung;  ///< the call did not return within the time limit (the worker was stopped)
};

/// The worker executable: $CR_STUDENT_WORKER, else beside this program (or
/// one or two folders up), else where the build put it. "" when not found.
std::string find_worker();

/// The `student` renderer (see file comment). The worker starts at the first
/// setup() and again after a fault.
class StudentRenderer final : public Renderer {
public:
    explicit StudentRenderer(StudentOptions options);
    ~StudentRenderer() override;

    std::string name() const override { return "student"; }
    void setup(const Scene& scene, int width, int height) override;
    void clear() override;
    void advance() override;
    void render() override;
    const Image& image() override;
    /// The student's getImage() of the last frame where the worker put it:
    /// `pixels` (width x height RGBA floats, row 0 at the bottom) in shared
    /// memory that `keep` holds mapped, also after the worker ends. Its
    /// contents are this frame's until the next fetch_image() or image() of
    /// this renderer, which the worker writes into the same memory. Lets a
    /// caller copy the 16 MB frame out on another thread while the next
    /// frame's calls run. Throws StudentFault as image() does.
    struct SharedImage {
        std::shared_ptr<const void> keep;
        const float* pixels = nullptr;
        int width = 0, height = 0;
        /// Copies the frame into `out` (resized when its size differs; its
        /// memory reused otherwise).
        void copy_to(Image& out) const;
    };
    SharedImage fetch_image();
    std::vector<StageTime> timings() override;
    int frame() const override { return frame_; }
    void profiler_range(bool on) override;
    bool course_timing() const override { return true; }
    /// Op::CourseFrame: the frame and its PPM file in the worker, as the course's process runs them.
    std::optional<std::vector<StageTime>> course_frame(const std::string& ppm_path) override;

    /// Where the student's own output (printf, std::cout) goes.
    const std::string& log_path() const { return options_.log_path; }
    /// Stops the worker; the next setup() starts a fresh one.
    void restart();
    /// The student's call in progress (Call::None between calls) and the
    /// frame it belongs to (-1: setup); safe to read from any thread, e.g. for
    /// "render() has not returned for 3 s (frame 12)" while another thread waits.
    Call call_in_progress() const { return static_cast<Call>(in_call_.load()); }
    int frame_in_progress() const { return in_frame_.load(); }
    /// Kills the worker at once, from any thread (through a pidfd, so never
    /// another process): the call waiting on it then returns as a crash in
    /// the thread that made it. No-op without a worker.
    void kill_from_any_thread();
    /// Ends the worker as a finished course process ends and hands over to
    /// a fresh one (Renderer::cold_start): the old worker is asked to quit
    /// and reaped on another thread (its exit may overlap the new worker's
    /// setup, which is not timed, but setup() waits for it before it
    /// returns, so timed frames never share the GPU with it); the new worker is the
    /// spare started at the previous cold start (already past exec and the
    /// dlopen of the student's library, which need no GPU), else one
    /// started at setup(); and a spare for the next cold start is started
    /// now. Without a spare (the first cold start, or under a wrapper such
    /// as compute-sanitizer: none is kept) it is as a fresh worker was.
    void cold_start() override;

private:
    struct Worker;
    /// Sends one request to the worker and waits for its reply (a fault,
    /// a hang or a CUDA error throws StudentFault); `reply_text`, when
    /// given, gets the reply's text.
    Reply call(Op op, Call call, int frame, const std::string& text = "", uint64_t region_bytes = 0, int arg = 0,
               std::string* reply_text = nullptr);
    /// Stops the worker (its CUDA context may be broken) and throws
    /// StudentFault("student renderer: " + what).
    [[noreturn]] void fail(const std::string& what, Call call, int frame, bool hung = false);
    /// Kills the worker and reaps it on another thread.
    void stop_worker();
    /// Asks the worker to delete the renderer and exit, and waits for it (5 s at most).
    void quit_worker();
    void start_worker();
    /// Starts a worker process (no request sent yet).
    std::unique_ptr<Worker> spawn_worker();
    /// Writes one request to `w` (text after the fixed-size header).
    WaitResult send_request(Worker& w, Op op, const std::string& text, uint64_t region_bytes, int arg);
    /// The rest of call(): waits for worker_'s reply to a request whose
    /// sending ended in `sent`.
    Reply await_reply(WaitResult sent, Call c, int frame, std::string* reply_text);
    /// Asks worker_ to quit and reaps it on another thread (retiring_).
    void retire_worker();
    /// Waits until the worker retire_worker() let go has exited.
    void finish_retiring();
    /// Starts spare_ and sends it the library to load.
    void start_spare();
    /// Makes spare_ the worker and waits for its library's load reply.
    void take_spare();

    /// Takes worker_'s pidfd for kill_from_any_thread (before it can be reaped).
    void adopt_kill_handle();
    /// Forgets the worker's pidfd (before the worker is reaped).
    void forget_kill_handle();

    StudentOptions options_;
    std::unique_ptr<Worker> worker_;
    std::unique_ptr<Worker> spare_;  ///< started ahead for the next cold start (its Load request sent)
    std::future<void> retiring_;     ///< the previous worker's quit and exit
    std::atomic<int> in_call_{0}, in_frame_{-1};
    std::mutex kill_mutex_;
    int kill_fd_ = -1;  ///< pidfd of the worker process (-1: none), under kill_mutex_
    Image image_;
    int width_ = 0, height_ = 0, frame_ = 0;
    double clear_ms_ = 0, advance_ms_ = 0, render_ms_ = 0;
};

}  // namespace cr::student
