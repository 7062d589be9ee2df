#include "render/renderer_factory.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "render/cpu/cpu_parallel.h"
#include "render/cpu/cpu_stages.h"
#include "render/student/student_build.h"
#include "render/student/student_renderer.h"
#include "kernels/cuda_renderer.h"  // the renderer itself only with CR_HAVE_CUDA; its options always

namespace cr {

const std::vector<RendererInfo>& renderer_infos() {
    static const std::vector<RendererInfo> infos = {
        {"cpuref", "sequential CPU reference (the ground truth)", false},
        {"cpu", "multi-core CPU, tiled like the GPU kernels", false},
        {"naive", "CUDA: one thread per pixel walks every circle", true},
        {"tiled", "CUDA: binned tiles, block scan, shared-memory lists", true},
        {"persistent", "CUDA: tiled with resident blocks taking tiles from a counter", true},
        {"ftb", "CUDA: tiled, front to back with early termination (within 1e-5 of cpuref, not bit-exact)", true},
        {"unordered", "CUDA DEMO, INCORRECT: the starter's racy one-thread-per-circle kernel", true, true},
        {"student", "your own course-format renderer (--student DIR), run in a worker process", true},
    };
    return infos;
}

unsigned long long student_memory_budget(unsigned long long asked) {
    if (asked > 0) return asked;
    const unsigned long long generous = 16ull << 30;
#if CR_HAVE_CUDA
    const unsigned long long total = cuda_device_total_bytes();
    if (total > 0 && total / 2 < generous) return total / 2;
#endif
    return generous;
}

std::string renderer_names_help() {
    std::string out;
    for (const auto& i : renderer_infos()) {
        std::string name = i.name;
        if (name == "tiled") name += " (= cuda)";
        if (i.incorrect_by_design) name += " (demo, incorrect)";
        if (name == "student") name += " (your renderer: --student DIR)";
        out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

bool cuda_built() { return CR_HAVE_CUDA != 0; }

std::string cuda_switches_help() { return cuda_options_help(); }

/// The message for a GPU renderer in a build without CUDA.
static const char* const kNoCudaBuild = "this build has no CUDA support (no nvcc found at configure time)";

bool cuda_device_available(std::string* why) {
#if CR_HAVE_CUDA
    return cuda_device_usable(why);
#else
    if (why) *why = kNoCudaBuild;
    return false;
#endif
}

int gpu_count() {
#if CR_HAVE_CUDA
    return cuda_device_count();
#else
    return 0;
#endif
}

std::string gpu_description() {
    std::string why;
    if (!cuda_device_available(&why)) return why;
#if CR_HAVE_CUDA
    return cuda_device_description();
#else
    return "";
#endif
}

std::string default_renderer_name() { return cuda_device_available() ? "tiled" : "cpu"; }

std::string canonical_renderer_name(const std::string& name_in) {
    const std::string name = name_in == "cuda" ? "tiled" : (name_in == "ref" ? "cpuref" : name_in);
    std::string all;
    for (const auto& i : renderer_infos()) {
        if (i.name == name) return name;
        all += (all.empty() ? "" : ", ") + i.name;
    }
    throw std::invalid_argument("unknown renderer '" + name_in + "' (valid: " + all + ", cuda)");
}

std::string renderer_unavailable_reason(const std::string& name_in) {
    const std::string name = canonical_renderer_name(name_in);
    for (const auto& i : renderer_infos())
        if (i.name == name && !i.needs_gpu) return "";
    if (name == "student" && !cuda_built()) return "";  // the student's library brings its own CUDA
    if (const char* hook = std::getenv("CR_STUDENT_WITHOUT_GPU"); name == "student" && hook && std::string(hook) == "1")
        return "";
    std::string why;
    if (cuda_device_available(&why)) return "";
    return why;
}

std::string renderer_unavailable(const std::string& name_in) {
    const std::string why = renderer_unavailable_reason(name_in);
    if (why.empty()) return "";
    const std::string name = canonical_renderer_name(name_in);
    const std::string said = name == name_in ? "'" + name + "'" : "'" + name_in + "' (= " + name + ")";
    return "renderer " + said + " needs a CUDA GPU: " + why;
}

namespace {

std::unique_ptr<Renderer> make_student_renderer(const RendererContext& ctx) {
    if (ctx.student_dir.empty())
        throw std::invalid_argument("renderer 'student' needs --student DIR (your course's render/ folder)");
    student::BuildOptions bo;
    bo.dir = ctx.student_dir;
    const student::BuildResult build = student::build_student(bo);
    const std::string why = renderer_unavailable("student");  // built, but is there anything to run it on?
    if (!why.empty()) throw NoCudaDeviceError(why + " (--build-only builds without one)");
    student::StudentOptions so;
    so.library = build.library;
    so.call_timeout_s = ctx.student_timeout_s;
    so.device_memory_bytes = student_memory_budget(ctx.student_memory_bytes);
    so.gpu = ctx.student_gpu;
    so.course_sync_each_call = build.folder.benchmark.syncs;  // a fresh course process times as the folder's benchmark
    auto r = std::make_unique<student::StudentRenderer>(so);
    if (ctx.on_note) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.1f", build.seconds);
        ctx.on_note("student: " + (build.cached ? std::string("unchanged since the last build, using ")
                                                : "built in " + std::string(secs) + " s: ") +
                    build.library + "; your program's output goes to " + r->log_path());
    }
    return r;
}

}  // namespace

std::unique_ptr<Renderer> make_renderer(const std::string& name_in, const RendererContext& ctx) {
    const std::string name = canonical_renderer_name(name_in);
    if (name == "cpuref") return std::make_unique<CpuRefRenderer>();
    if (name == "cpu") return std::make_unique<CpuParallelRenderer>();
    if (name == "student") return make_student_renderer(ctx);
    const std::string why = renderer_unavailable(name_in);  // in the words the user typed (cuda = tiled)
    if (!why.empty()) throw NoCudaDeviceError(why + "; use --renderer cpu or cpuref");
#if CR_HAVE_CUDA
    const KernelKind kind = name == "naive"        ? KernelKind::Naive
                            : name == "tiled"      ? KernelKind::Tiled
                            : name == "persistent" ? KernelKind::Persistent
                            : name == "ftb"        ? KernelKind::FrontToBack
                                                   : KernelKind::Unordered;
    return make_cuda_renderer(kind, cuda_options_from_env());
#else
    throw NoCudaDeviceError("renderer '" + name + "': " + kNoCudaBuild);  // not reached: unavailable above
#endif
}

std::unique_ptr<Renderer> make_live_reference(const std::string& checked) {
    return make_renderer(checked == "cpu" ? "cpuref" : "cpu");
}

std::string live_reference_label(const std::string& checked) {
    if (checked == "cpu") return "cpuref (live)";
    return "cpuref (live, drawn by the multi-core 'cpu' renderer, bit-identical to cpuref)";
}

long long count_blends(const Scene& s, int w, int h) {
    long long n = 0;
    const float inv_w = 1.f / static_cast<float>(w), inv_h = 1.f / static_cast<float>(h);
    for (size_t k = 0; k < s.count(); ++k) {
        const PixelBox b = circle_pixel_box(s.x[k], s.y[k], s.radius[k], w, h);
        for (int j = b.min_y; j < b.max_y; ++j) {
            const float py = pixel_center(j, inv_h);
            for (int i = b.min_x; i < b.max_x; ++i)
                n += covers(center_distance2(s.x[k], s.y[k], pixel_center(i, inv_w), py), s.radius[k]);
        }
    }
    return n;
}

}  // namespace cr
