// render-student-worker: runs a student's course-format renderer for the
// harness, in a process of its own, so that its crash, hang or CUDA error
// cannot take the harness or the harness's CUDA context down.
//
// Requests arrive on fd 3 and replies leave on fd 4 (render/student/protocol.h);
// standard output and error (the student's own prints) go to the log file the
// harness opened for us. Every student call is timed the course's way: host
// clock around the call and a cudaDeviceSynchronize() (inside the student's
// library, through the entry shim's cr_student_sync, so it is the student's
// own CUDA runtime that is synchronized and asked for errors). The
// environment variable CR_STUDENT_NO_CUDA_SYNC (a test hook: host-only
// fixtures on machines without a GPU) skips that synchronization.
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "render/core/bands.h"
#include "render/student/course_context.h"
#include "render/student/protocol.h"
#include "render/student/shared_region.h"

namespace cr::student {
namespace {

// The student library's entry points (render/student/course/cr_student_entry.cu):
// the renderer is an opaque pointer, so the worker depends on none of the
// student's types (their CudaRenderer, Image or course year).
using CreateFn = void* (*)();
using CallFn = void (*)(void*);
using AllocFn = void (*)(void*, int, int);
using LoadFn = void (*)(void*, int, int);
using ImageFn = int (*)(void*, int*, int*, const float**);
using SyncFn = int (*)(char*, int);
using ProfilerFn = void (*)(int);
using BudgetFn = void (*)(unsigned long long);

/// The entry points, found with dlsym.
struct Entry {
    CreateFn create = nullptr;
    CallFn destroy = nullptr, setup = nullptr, clear = nullptr, advance = nullptr, render = nullptr;
    AllocFn alloc = nullptr;
    LoadFn load = nullptr;
    ImageFn image = nullptr;
    SyncFn sync = nullptr;
    SyncFn peek = nullptr;     ///< the last CUDA error without waiting (for an exit() in a call)
    SyncFn refused = nullptr;  ///< an allocation past the budget since the last ask: 1 and the sentence
    BudgetFn budget = nullptr;
    ProfilerFn profiler = nullptr;  ///< optional
};

class Worker;
/// The worker of this process, for the exit() below (the course API and
/// exit() take no context: one worker per process).
Worker* g_worker = nullptr;

bool read_exact(int fd, void* data, size_t n) {
    char* p = static_cast<char*>(data);
    while (n > 0) {
        const ssize_t got = read(fd, p, n);
        if (got <= 0) return false;
        p += got;
        n -= static_cast<size_t>(got);
    }
    return true;
}

bool write_exact(int fd, const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t put = write(fd, p, n);
        if (put <= 0) return false;
        p += put;
        n -= static_cast<size_t>(put);
    }
    return true;
}

class Worker {
public:
    /// status_region: the WorkerStatus the harness reads after a crash ("" =
    /// none); budget_bytes: the student's device-memory budget (0 = none).
    Worker(const std::string& status_region, unsigned long long budget_bytes)
        : no_sync_(std::getenv("CR_STUDENT_NO_CUDA_SYNC") != nullptr), budget_bytes_(budget_bytes) {
        if (!status_region.empty()) status_ = SharedRegion::open(status_region, sizeof(WorkerStatus));
        g_worker = this;
    }
    ~Worker() { g_worker = nullptr; }

    /// The student's code called exit(code): during a call, note the code and
    /// the student's last CUDA error in the status block before the process goes.
    void note_exit(int code) {
        if (!status_.valid() || status()->call == static_cast<int32_t>(Call::None)) return;
        WorkerStatus* st = status();
        st->exit_code = code;
        if (entry_.peek) st->cuda_error = entry_.peek(st->cuda_text, sizeof st->cuda_text);
        st->exited = 1;
    }

    int serve() {
        Request req;
        std::string text;
        while (read_request(req, text)) {
            if (req.op == Op::Quit) {
                destroy_renderer();
                send(Status::Ok, Call::Destructor, 0, text);
                return 0;
            }
            dispatch(req, text);
        }
        return 0;  // the harness went away
    }

private:
    bool read_request(Request& req, std::string& text) {
        if (!read_exact(kIn, &req, sizeof req) || req.magic != kProtocolMagic) return false;
        text.assign(req.text_bytes, '\0');
        return req.text_bytes == 0 || read_exact(kIn, text.data(), req.text_bytes);
    }

    void send(Status status, Call call, double ms, const std::string& text, int w = 0, int h = 0, int cuda_error = 0) {
        std::fflush(stdout);
        std::fflush(stderr);
        Reply r;
        r.status = status;
        r.call = call;
        r.ms = ms;
        r.width = w;
        r.height = h;
        r.text_bytes = static_cast<uint32_t>(text.size());
        r.cuda_error = cuda_error;
        if (!write_exact(kOut, &r, sizeof r) || !write_exact(kOut, text.data(), text.size())) _exit(3);
    }

    void dispatch(const Request& req, const std::string& text) {
        switch (req.op) {
            case Op::Load: load(text); break;
            case Op::Setup: setup(req, text); break;
            case Op::Clear: frame_call(Call::ClearImage, [this] { entry_.clear(renderer_); }); break;
            case Op::Advance: frame_call(Call::AdvanceAnimation, [this] { entry_.advance(renderer_); }); break;
            case Op::Render: frame_call(Call::Render, [this] { entry_.render(renderer_); }); break;
            case Op::Image: image(req, text); break;
            case Op::CourseFrame: course_frame(text, /*sync_each_call=*/req.arg == 0); break;
            case Op::Profile:
                if (entry_.profiler) entry_.profiler(req.arg);
                send(Status::Ok, Call::None, 0, "");
                break;
            default: send(Status::Failed, Call::None, 0, "unknown request"); break;
        }
    }

    /// Records which student call is running, in the shared status word, so
    /// the harness can name it if the worker dies.
    void mark(Call call) {
        if (status_.valid()) status()->call = static_cast<int32_t>(call);
    }

    WorkerStatus* status() { return static_cast<WorkerStatus*>(status_.data()); }

    /// Runs one student call, then (with `sync`) synchronizes and asks for
    /// its errors; `ms` is the call's time, the synchronization included.
    /// False (reply sent) on failure.
    template <class F>
    bool run_call(Call call, F&& fn, double& ms, bool sync = true) {
        mark(call);
        const auto t0 = std::chrono::steady_clock::now();
        try {
            fn();
        } catch (const std::exception& e) {
            send(Status::Failed, call, 0, std::string("threw an exception: ") + e.what());
            return false;
        } catch (...) {
            send(Status::Failed, call, 0, "threw an exception that is not a std::exception");
            return false;
        }
        if (sync && !synchronize(call, t0)) return false;  // marks the call done
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        mark(Call::None);
        return true;
    }

    /// cudaDeviceSynchronize() and the last error, after `call` (begun at
    /// `t0`); false (reply sent) on an error or an allocation past the budget.
    bool synchronize(Call call, std::chrono::steady_clock::time_point t0) {
        mark(call);
        char message[512] = {0};
        if (no_sync_) std::fprintf(stderr, "--- harness: no sync (test hook) after %s\n", call_name(call));
        const int err = no_sync_ ? 0 : entry_.sync(message, sizeof message);
        if (entry_.refused && entry_.refused(message, sizeof message)) {  // past the budget: the report says so
            mark(Call::None);
            send(Status::Failed, call, 0, message);
            return false;
        }
        mark(Call::None);
        if (err != 0) {
            send(Status::CudaError, call, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                 message, 0, 0, err);
            return false;
        }
        return true;
    }

    void load(const std::string& path) {
        void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: it lives as long as the worker
        if (!lib) return send(Status::Failed, Call::LoadLibrary, 0, dlerror());
        Entry e;
        bool all = find(lib, "cr_student_create", e.create) & find(lib, "cr_student_destroy", e.destroy) &
                   find(lib, "cr_student_alloc", e.alloc) & find(lib, "cr_student_load", e.load) &
                   find(lib, "cr_student_setup", e.setup) & find(lib, "cr_student_clear", e.clear) &
                   find(lib, "cr_student_advance", e.advance) & find(lib, "cr_student_render", e.render) &
                   find(lib, "cr_student_image", e.image) & find(lib, "cr_student_sync", e.sync);
        find(lib, "cr_student_profiler", e.profiler);
        find(lib, "cr_student_peek_error", e.peek);
        if (find(lib, "cr_student_budget", e.budget) & find(lib, "cr_student_budget_refused", e.refused))
            e.budget(budget_bytes_);
        else
            e.refused = nullptr;
        if (!all) return send(Status::Failed, Call::LoadLibrary, 0, "the library lacks the harness's entry points");
        entry_ = e;
        send(Status::Ok, Call::LoadLibrary, 0, "");
    }

    void destroy_renderer() {
        mark(Call::Destructor);
        if (renderer_) entry_.destroy(renderer_);
        renderer_ = nullptr;
        mark(Call::None);
    }

    void setup(const Request& req, const std::string& region_name) {
        if (!entry_.create) return send(Status::Failed, Call::LoadLibrary, 0, "no library loaded");
        Scene scene;
        try {
            scene = read_scene(SharedRegion::open(region_name, req.region_bytes).data(), req.region_bytes);
        } catch (const std::exception& e) {
            return send(Status::Failed, Call::None, 0, e.what());
        }
        const int value = course_scene_value(scene);
        const int seed = static_cast<int>(scene.seed);
        course_context().scene = std::move(scene);
        course_context().has_scene = true;
        if (const char* gpu = std::getenv("CUDA_VISIBLE_DEVICES"))  // --student-gpu: said before the setup line
            std::fprintf(stderr, "--- harness: on GPU %s (CUDA_VISIBLE_DEVICES)\n", gpu);
        std::fprintf(stderr, "--- harness: setup %dx%d, scene %s (SceneName %d), seed %d, worker process %d\n", req.width,
                     req.height, course_context().scene.name.c_str(), value, seed, static_cast<int>(getpid()));
        destroy_renderer();
        double ms = 0, total = 0;
        if (!run_call(Call::Constructor, [this] { renderer_ = entry_.create(); }, ms)) return;
        total += ms;
        if (!run_call(Call::AllocOutputImage, [&] { entry_.alloc(renderer_, req.width, req.height); }, ms)) return;
        total += ms;
        if (!run_call(Call::LoadScene, [&] { entry_.load(renderer_, value, seed); }, ms)) return;
        total += ms;
        if (!run_call(Call::Setup, [this] { entry_.setup(renderer_); }, ms)) return;
        send(Status::Ok, Call::Setup, total + ms, "");
    }

    template <class F>
    void frame_call(Call call, F&& fn) {
        if (!renderer_) return send(Status::Failed, call, 0, "no renderer set up");
        double ms = 0;
        if (run_call(call, fn, ms)) send(Status::Ok, call, ms, "");
    }

    /// Op::CourseFrame: the three calls back to back, then the PPM file at
    /// `ppm_path` ("" = none) from getImage(), as the course's process does.
    /// Without `sync_each_call` (the folder's benchmark.cpp of 2019-2022)
    /// each call's time ends when it returns, and the frame is synchronized
    /// after the three, untimed, where the course's binary reads the image.
    void course_frame(const std::string& ppm_path, bool sync_each_call) {
        if (!renderer_) return send(Status::Failed, Call::ClearImage, 0, "no renderer set up");
        double ms[3] = {0, 0, 0};
        if (!run_call(Call::ClearImage, [this] { entry_.clear(renderer_); }, ms[0], sync_each_call) ||
            !run_call(Call::AdvanceAnimation, [this] { entry_.advance(renderer_); }, ms[1], sync_each_call) ||
            !run_call(Call::Render, [this] { entry_.render(renderer_); }, ms[2], sync_each_call))
            return;  // run_call replied
        if (!sync_each_call && !synchronize(Call::Frame, std::chrono::steady_clock::now())) return;
        if (!ppm_path.empty()) {
            int w = 0, h = 0, missing = 0;
            const float* data = nullptr;
            double image_ms = 0;
            if (!run_call(Call::GetImage, [&] { missing = entry_.image(renderer_, &w, &h, &data); }, image_ms)) return;
            if (missing || !data) return send(Status::BadImage, Call::GetImage, 0, "getImage() returned no image");
            if (!write_ppm(ppm_path, data, w, h)) return send(Status::Failed, Call::None, 0, "cannot write " + ppm_path);
        }
        char times[96];
        std::snprintf(times, sizeof times, "%.9g %.9g %.9g", ms[0], ms[1], ms[2]);
        send(Status::Ok, Call::Render, ms[0] + ms[1] + ms[2], times);
    }

    /// A binary PPM of the w x h RGBA float image (row 0 at the bottom, as
    /// the course stores it): the top row first, each channel clamped to
    /// [0, 1] (NaN as 0) and scaled to 0..255, truncated. Written a byte at
    /// a time with fputc, as the course's writePPMImage writes it, so the
    /// time between two timed frames (the GPU idle meanwhile) is the course
    /// binary's (on the 2-core development machine, 1024x1024: 33 ms a file
    /// this way, 24 ms in whole rows with fwrite).
    static bool write_ppm(const std::string& path, const float* data, int w, int h) {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) return false;
        std::fprintf(f, "P6\n%d %d\n255\n", w, h);
        for (int j = h - 1; j >= 0; --j) {
            const float* px = data + size_t(j) * w * 4;
            for (int i = 0; i < w; ++i)
                for (int c = 0; c < 3; ++c) {
                    const float v = px[size_t(i) * 4 + c];
                    const float v01 = v > 0.f ? (v < 1.f ? v : 1.f) : 0.f;  // NaN: 0
                    std::fputc(static_cast<unsigned char>(255.f * v01), f);
                }
        }
        return std::fclose(f) == 0;
    }

    void image(const Request& req, const std::string& region_name) {
        if (!renderer_) return send(Status::Failed, Call::GetImage, 0, "no renderer set up");
        int w = 0, h = 0, missing = 0;
        const float* data = nullptr;
        double ms = 0;
        if (!run_call(Call::GetImage, [&] { missing = entry_.image(renderer_, &w, &h, &data); }, ms)) return;
        if (missing || !data) return send(Status::BadImage, Call::GetImage, ms, "getImage() returned no image");
        if (w != req.width || h != req.height) return send(Status::BadImage, Call::GetImage, ms, "", w, h);
        const size_t bytes = size_t(w) * h * 4 * sizeof(float);
        try {
            if (image_region_.name() != region_name) image_region_ = SharedRegion::open(region_name, req.region_bytes);
            if (image_region_.size() < bytes) throw std::runtime_error("image region too small");
            parallel_copy(image_region_.data(), data, bytes);  // in bands: part of the workbench's student pace
        } catch (const std::exception& e) {
            return send(Status::Failed, Call::None, ms, e.what());
        }
        send(Status::Ok, Call::GetImage, ms, "", w, h);
    }

    template <class F>
    static bool find(void* lib, const char* name, F& fn) {
        fn = reinterpret_cast<F>(dlsym(lib, name));
        return fn != nullptr;
    }

    static constexpr int kIn = 3, kOut = 4;
    /// CR_STUDENT_NO_CUDA_SYNC set: no cudaDeviceSynchronize after a call,
    /// for the harness's own tests of host-only fixtures without a GPU.
    const bool no_sync_;
    const unsigned long long budget_bytes_;
    Entry entry_;
    void* renderer_ = nullptr;
    SharedRegion image_region_, status_;
};

}  // namespace
}  // namespace cr::student

/// exit() for the whole process (the executable's symbol comes first in the
/// dynamic linker's lookup, so the student's library calls this one): in a
/// student's call it first notes the code and the student's last CUDA error
/// (Worker::note_exit), then exits as libc's exit() does.
extern "C" void exit(int code) noexcept {
    if (cr::student::g_worker) cr::student::g_worker->note_exit(code);
    using ExitFn = void (*)(int);
    static const ExitFn real = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, "exit"));
    if (real) real(code);
    _exit(code);
}

int main(int argc, char** argv) {
    // The student's prints reach the log line by line, also before a crash.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::setvbuf(stderr, nullptr, _IONBF, 0);
    try {
        // argv: [1] the status region's name, [2] the device-memory budget in bytes
        cr::student::Worker worker(argc > 1 ? argv[1] : "", argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0);
        return worker.serve();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "render-student-worker: %s\n", e.what());
        return 2;
    }
}
