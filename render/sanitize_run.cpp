// A student's renderer under compute-sanitizer (sanitize_run.h).
#include "render/sanitize_run.h"

#include <algorithm>

#include "render/core/text.h"
#include "render/frame_loop.h"
#include "render/student/student_renderer.h"

namespace cr {

namespace {

/// The renderer under the sanitizer; the fault that stopped it ("" when none).
std::string run_frames_of(const student::StudentOptions& so, const Scene& scene, int w, int h, int frames) {
    student::StudentRenderer r(so);
    try {
        render_frames(r, scene, w, h, frames);
    } catch (const student::StudentFault& e) {
        return e.what();
    }
    return "";
}  // the worker ends here, and the sanitizer writes its summary

}  // namespace

SanitizeOutcome sanitize_student(const student::BuildResult& b, const Scene& scene, int width, int height, int frames,
                                 const std::string& tool_name, const RendererContext& ctx) {
    SanitizeOutcome out;
    out.tool = student::sanitizer_tool(tool_name);
    const std::string exe = student::require_compute_sanitizer();
    const std::string why = renderer_unavailable("student");
    if (!why.empty()) throw NoCudaDeviceError(why + " (--build-only builds without one)");
    out.report_path = b.build_dir + "/sanitize-" + out.tool + ".log";
    student::StudentOptions so;
    so.library = b.library;
    so.log_path = b.build_dir + "/student-sanitize.log";
    so.wrapper = student::sanitizer_command(exe, out.tool, out.report_path);
    so.call_timeout_s = std::max(300.0, 10 * ctx.student_timeout_s);  // every access is checked: much slower
    so.quit_wait_s = 300;
    so.end_gently = true;  // so that the tool writes its whole report
    so.device_memory_bytes = student_memory_budget(ctx.student_memory_bytes);
    so.gpu = ctx.student_gpu;
    out.fault = run_frames_of(so, scene, width, height, frames);
    out.report = student::parse_sanitizer_log(student::map_build_paths(read_file_bytes(out.report_path), b));
    return out;
}

}  // namespace cr
