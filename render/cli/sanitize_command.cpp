// `render --student DIR --sanitize [TOOL]` (commands.h, run_sanitize): the
// student's renderer built as always (with -lineinfo), its worker run under
// compute-sanitizer, the report read back with the student's own paths.
#include <cstdio>

#include "render/cli/commands.h"
#include "render/options.h"
#include "render/sanitize_run.h"
#include "render/scene_source.h"

namespace cr {

int run_sanitize(const RenderArgs& a) {
    if (a.student_dir.empty())
        throw std::invalid_argument("--sanitize goes with --student DIR (it runs your renderer under compute-sanitizer)");
    const std::string tool = student::sanitizer_tool(a.sanitize);
    const RenderPlan p = plan_render(a);
    const RendererContext ctx = student_context(a.student_dir, a.student_timeout, a.student_memory);
    student::require_compute_sanitizer();  // said before the build
    student::BuildOptions bo;
    bo.dir = a.student_dir;
    const student::BuildResult b = student::build_student(bo);
    const Scene scene = load_scene(SceneRequest{p.scene_name, a.scene_file, a.particles, p.seed}).scene;
    std::fprintf(stderr, "compute-sanitizer %s: your renderer on %s at %dx%d, frames 0..%d (slower: every access is "
                         "checked) ...\n", tool.c_str(), scene.name.c_str(), p.width, p.height, p.range.end - 1);
    const SanitizeOutcome o = sanitize_student(b, scene, p.width, p.height, p.range.end, tool, ctx);
    std::printf("%s", student::describe_sanitizer_report(o.report, o.tool).c_str());
    if (!o.fault.empty()) std::printf("your renderer stopped: %s\n", o.fault.c_str());
    std::printf("the tool's whole report: %s\n", o.report_path.c_str());
    return o.report.findings.empty() ? kExitOk : kExitMismatch;
}

}  // namespace cr
