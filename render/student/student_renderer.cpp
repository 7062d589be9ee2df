#include "render/student/student_renderer.h"

#include "render/core/bands.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <thread>

#include "render/core/numbers.h"
#include "render/core/text.h"
#include "render/student/process.h"
#include "render/student/shared_region.h"

namespace fs = std::filesystem;

namespace cr::student {

/// The worker process and the shared memory it reads the scene from, writes
/// images to, and marks the student's call in progress in (for crash reports).
struct StudentRenderer::Worker {
    Worker(SharedRegion status_region, const ProcessOptions& o) : status(std::move(status_region)), process(o) {}
    /// The worker's status block (the student's call in progress, a noted exit()).
    const WorkerStatus& status_block() const { return *static_cast<const WorkerStatus*>(status.data()); }
    Call current_call() const { return static_cast<Call>(status_block().call); }
    SharedRegion status;
    ChildProcess process;
    SharedRegion scene;
    std::shared_ptr<SharedRegion> image;  ///< shared: a fetched image keeps it mapped (fetch_image)
    WaitResult load_sent = WaitResult::Ok;  ///< how sending a spare's Load request ended
    /// Removes the names of the worker's regions from /dev/shm (the
    /// mappings stay): for a worker reaped on a detached thread, which the
    /// harness does not wait for when it ends.
    void unlink_regions() {
        status.unlink_now();
        scene.unlink_now();
        if (image) image->unlink_now();
    }
};

namespace {

constexpr double kSendTimeout = 10;

/// Said after a CUDA error of the student's.
constexpr const char* kSanitizeHint =
    "; run it again with --sanitize to see which thread of which kernel did it, at which line of your code";

std::string frame_text(Call call, int frame) {
    if (frame < 0) return std::string(call_name(call));
    return std::string(call_name(call)) + ", frame " + std::to_string(frame);
}

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

}  // namespace

std::string find_worker() {
    const char* name = "render-student-worker";
    if (const char* env = std::getenv("CR_STUDENT_WORKER"))
        if (executable(env)) return env;
    const std::string beside = find_beside_this_program(name, executable);
    if (!beside.empty()) return beside;
#ifdef CR_STUDENT_WORKER_PATH
    if (executable(CR_STUDENT_WORKER_PATH)) return CR_STUDENT_WORKER_PATH;
#endif
    return "";
}

namespace {

/// Marks a call in progress for other threads (StudentRenderer::call_in_progress).
struct InCall {
    InCall(std::atomic<int>& call, std::atomic<int>& frame, Call c, int f) : call_(call) {
        frame.store(f);
        call.store(static_cast<int>(c));
    }
    ~InCall() { call_.store(static_cast<int>(Call::None)); }
    std::atomic<int>& call_;
};

}  // namespace

StudentRenderer::StudentRenderer(StudentOptions options) : options_(std::move(options)) {
    if (options_.worker.empty()) options_.worker = find_worker();
    if (options_.worker.empty())
        throw std::runtime_error("render-student-worker was not found beside this program (set CR_STUDENT_WORKER)");
    if (options_.log_path.empty()) options_.log_path = (fs::path(options_.library).parent_path() / "student.log").string();
    std::ofstream(options_.log_path, std::ios::trunc);  // a fresh log for this run
}

StudentRenderer::~StudentRenderer() {
    quit_worker();
    spare_.reset();  // no CUDA context yet: killed and reaped at once
    finish_retiring();
}

void StudentRenderer::forget_kill_handle() {
    std::lock_guard<std::mutex> lock(kill_mutex_);
    if (kill_fd_ >= 0) close(kill_fd_);
    kill_fd_ = -1;
}

void StudentRenderer::kill_from_any_thread() {
    std::lock_guard<std::mutex> lock(kill_mutex_);
    if (kill_fd_ >= 0) syscall(SYS_pidfd_send_signal, kill_fd_, SIGKILL, nullptr, 0);
}

void StudentRenderer::quit_worker() {
    if (!worker_) return;
    forget_kill_handle();
    Request q;
    q.op = Op::Quit;
    if (worker_->process.send(&q, sizeof q, 2) == WaitResult::Ok) worker_->process.wait(options_.quit_wait_s);
    worker_.reset();
}

void StudentRenderer::restart() {
    forget_kill_handle();
    worker_.reset();
    spare_.reset();
}

void StudentRenderer::retire_worker() {
    if (!worker_) return;
    forget_kill_handle();
    finish_retiring();
    retiring_ = std::async(std::launch::async, [w = std::move(worker_), wait_s = options_.quit_wait_s]() mutable {
        Request q;
        q.op = Op::Quit;
        if (w->process.send(&q, sizeof q, 2) == WaitResult::Ok) w->process.wait(wait_s);
        w.reset();  // kills it if it has not exited by now
    });
}

void StudentRenderer::finish_retiring() {
    if (retiring_.valid()) retiring_.get();
}

void StudentRenderer::start_spare() {
    try {
        spare_ = spawn_worker();
        spare_->load_sent = send_request(*spare_, Op::Load, options_.library, 0, 0);
    } catch (const ProcessError&) {
        spare_.reset();  // setup() starts one itself and reports why it cannot
    }
}

void StudentRenderer::adopt_kill_handle() {
    std::lock_guard<std::mutex> lock(kill_mutex_);  // not yet reaped: this pid is our child's
    kill_fd_ = static_cast<int>(syscall(SYS_pidfd_open, worker_->process.pid(), 0));
}

void StudentRenderer::take_spare() {
    worker_ = std::move(spare_);
    adopt_kill_handle();
    const InCall marker(in_call_, in_frame_, Call::LoadLibrary, -1);
    await_reply(worker_->load_sent, Call::LoadLibrary, -1, nullptr);
}

void StudentRenderer::cold_start() {
    retire_worker();
    if (!options_.wrapper.empty()) return;  // a tool's run (compute-sanitizer): one worker at a time
    if (spare_) take_spare();
    start_spare();
}

void StudentRenderer::stop_worker() {
    // The worker's CUDA context may be broken: kill it now, but reap it on
    // another thread: a process with a faulted context can take seconds to
    // exit while the driver cleans up, and the caller (a GUI) must go on.
    forget_kill_handle();
    if (worker_) {
        worker_->process.signal_kill();
        worker_->unlink_regions();  // this process may end before the thread below has released them
        std::thread([w = std::move(worker_)]() mutable { w.reset(); }).detach();
    }
}

void StudentRenderer::fail(const std::string& what, Call c, int frame, bool hung) {
    if (options_.end_gently && worker_ && !worker_->process.exited()) quit_worker();
    else stop_worker();
    throw StudentFault("student renderer: " + what, c, frame, hung);
}

namespace {

/// cudaError_t values (CUDA runtime API, the same in every version) that
/// mean there is no GPU to run on rather than a fault of the student's code:
/// cudaErrorInsufficientDriver (35: no driver, or one too old) and
/// cudaErrorNoDevice (100).
bool means_no_gpu(int cuda_error) { return cuda_error == 35 || cuda_error == 100; }

}  // namespace

std::string visible_device_for(int gpu) {
    const char* mine = std::getenv("CUDA_VISIBLE_DEVICES");
    if (!mine || !*mine) return std::to_string(gpu);
    const std::vector<std::string> ids = split_list(mine);
    return gpu < static_cast<int>(ids.size()) ? ids[static_cast<size_t>(gpu)] : "-1";  // -1: CUDA shows no GPU
}

std::unique_ptr<StudentRenderer::Worker> StudentRenderer::spawn_worker() {
    SharedRegion status = SharedRegion::create(sizeof(WorkerStatus));
    ProcessOptions o;
    o.argv = options_.wrapper;
    for (const auto& a : {options_.worker, status.name(), std::to_string(options_.device_memory_bytes)}) o.argv.push_back(a);
    o.log_path = options_.log_path;
    o.protocol_pipes = true;
    if (options_.gpu >= 0) o.env.push_back("CUDA_VISIBLE_DEVICES=" + visible_device_for(options_.gpu));
    return std::make_unique<Worker>(std::move(status), o);
}

void StudentRenderer::start_worker() {
    worker_ = spawn_worker();
    adopt_kill_handle();
    call(Op::Load, Call::LoadLibrary, -1, options_.library);
}


WaitResult StudentRenderer::send_request(Worker& w, Op op, const std::string& text, uint64_t region_bytes, int arg) {
    Request r;
    r.op = op;
    r.width = width_;
    r.height = height_;
    r.region_bytes = region_bytes;
    r.arg = arg;
    r.text_bytes = static_cast<uint32_t>(text.size());
    const std::string bytes = std::string(reinterpret_cast<const char*>(&r), sizeof r) + text;
    return w.process.send(bytes.data(), bytes.size(), kSendTimeout);
}

Reply StudentRenderer::call(Op op, Call c, int frame, const std::string& text, uint64_t region_bytes, int arg,
                            std::string* reply_text) {
    if (!worker_) start_worker();
    const InCall marker(in_call_, in_frame_, c, frame);
    return await_reply(send_request(*worker_, op, text, region_bytes, arg), c, frame, reply_text);
}

Reply StudentRenderer::await_reply(WaitResult w, Call c, int frame, std::string* reply_text) {
    ChildProcess& p = worker_->process;
    Reply reply;
    if (w == WaitResult::Ok) w = p.receive(&reply, sizeof reply, options_.call_timeout_s);
    std::string message(w == WaitResult::Ok ? reply.text_bytes : 0, '\0');
    if (w == WaitResult::Ok && !message.empty()) w = p.receive(message.data(), message.size(), kSendTimeout);
    if (reply_text) *reply_text = message;
    if (w == WaitResult::Timeout) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", options_.call_timeout_s);
        fail(std::string(call_name(c)) + " did not return within " + secs + " s" +
                 (frame >= 0 ? " (frame " + std::to_string(frame) + ")" : "") + "; the worker was stopped",
             c, frame, /*hung=*/true);
    }
    if (w == WaitResult::Exited) {
        p.wait(5);
        const Call in = worker_->current_call() == Call::None ? c : worker_->current_call();
        const WorkerStatus& st = worker_->status_block();
        if (st.exited) fail(exit_sentence(st, frame_text(in, frame)) + (st.cuda_error ? kSanitizeHint : ""), in, frame);
        fail("crashed (" + p.describe_exit() + ") in " + frame_text(in, frame), in, frame);
    }
    if (reply.status == Status::CudaError && means_no_gpu(reply.cuda_error)) {
        // a build without CUDA cannot ask for a device before running the
        // student's library: its first CUDA call is where "no GPU" shows
        stop_worker();
        throw NoCudaDeviceError("renderer 'student' needs a CUDA GPU: no NVIDIA GPU or driver found (the student's "
                                "CUDA runtime said '" + cuda_error_text(message) + "' in " + frame_text(reply.call, frame) + ")");
    }
    if (reply.status == Status::CudaError)
        fail(cuda_error_sentence(reply.cuda_error, message) + ", after " + frame_text(reply.call, frame) + kSanitizeHint,
             reply.call, frame);
    if (reply.status == Status::Failed) fail(frame_text(reply.call, frame) + ": " + message, reply.call, frame);
    if (reply.status == Status::BadImage) {
        if (!message.empty()) fail(message + " (" + frame_text(c, frame) + ")", c, frame);
        fail("getImage() returned a " + std::to_string(reply.width) + "x" + std::to_string(reply.height) +
                 " image, expected " + std::to_string(width_) + "x" + std::to_string(height_) + " (" +
                 frame_text(c, frame) + ")",
             c, frame);
    }
    return reply;
}

void StudentRenderer::setup(const Scene& scene, int width, int height) {
    require_valid_image_size(width, height);
    width_ = width;
    height_ = height;
    frame_ = 0;
    if (!worker_) start_worker();
    const size_t scene_bytes = scene_region_bytes(scene.count());
    if (worker_->scene.size() < scene_bytes) worker_->scene = SharedRegion::create(scene_bytes);
    write_scene(worker_->scene.data(), scene);
    const size_t image_bytes = size_t(width) * height * 4 * sizeof(float);
    if (!worker_->image || worker_->image->size() != image_bytes)
        worker_->image = std::make_shared<SharedRegion>(SharedRegion::create(image_bytes));
    call(Op::Setup, Call::Setup, -1, worker_->scene.name(), worker_->scene.size());
    finish_retiring();  // its exit may overlap this setup, but no frame shares the GPU with it
    clear_ms_ = advance_ms_ = render_ms_ = 0;
}

void StudentRenderer::clear() { clear_ms_ = call(Op::Clear, Call::ClearImage, frame_).ms; }

void StudentRenderer::advance() {
    advance_ms_ = call(Op::Advance, Call::AdvanceAnimation, frame_).ms;
    ++frame_;
}

void StudentRenderer::render() { render_ms_ = call(Op::Render, Call::Render, frame_ > 0 ? frame_ - 1 : 0).ms; }

std::optional<std::vector<StageTime>> StudentRenderer::course_frame(const std::string& ppm_path) {
    std::string times;  // "CLEAR ADVANCE RENDER" (ms)
    call(Op::CourseFrame, Call::ClearImage, frame_, ppm_path, 0, options_.course_sync_each_call ? 0 : 1, &times);
    double t[3] = {0, 0, 0};
    if (std::sscanf(times.c_str(), "%lf %lf %lf", &t[0], &t[1], &t[2]) != 3)
        fail("the worker's frame reply has no times ('" + times + "')", Call::Render, frame_);
    clear_ms_ = t[0];
    advance_ms_ = t[1];
    render_ms_ = t[2];
    ++frame_;
    return timings();
}

void StudentRenderer::SharedImage::copy_to(Image& out) const {
    if (out.width != width || out.height != height) out = Image(width, height);
    parallel_copy(out.data.data(), pixels, out.data.size() * sizeof(float));  // 16 MB at 1024x1024: in bands
}

const Image& StudentRenderer::image() {
    fetch_image().copy_to(image_);
    return image_;
}

StudentRenderer::SharedImage StudentRenderer::fetch_image() {
    if (!worker_ || !worker_->image) throw std::runtime_error("student renderer: no image (the renderer is not set up)");
    const std::shared_ptr<SharedRegion> region = worker_->image;
    call(Op::Image, Call::GetImage, frame_ > 0 ? frame_ - 1 : 0, region->name(), region->size());
    return SharedImage{region, static_cast<const float*>(region->data()), width_, height_};
}

void StudentRenderer::profiler_range(bool on) {
    if (worker_) call(Op::Profile, Call::None, frame_, "", 0, on ? 1 : 0);
}

std::vector<StageTime> StudentRenderer::timings() {
    return {{"clear", "Clear", clear_ms_}, {"advance", "Advance", advance_ms_}, {"render", "Render", render_ms_}};
}

}  // namespace cr::student
