// The student's renderer on the command line: --student DIR, --build-only,
// --student-timeout, and the notes about where the build and the student's
// own output are.
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "render/cli/commands.h"
#include "render/options.h"
#include "render/student/student_build.h"

namespace cr {

std::string requested_renderer(const std::string& renderer, const std::string& student_dir) {
    if (student_dir.empty()) return renderer;
    if (!renderer.empty() && canonical_renderer_name(renderer) != "student")
        throw std::invalid_argument("--student runs your renderer as renderer 'student'; drop -r " + renderer +
                                    " (or compare them with render bench --renderers student," + renderer + ")");
    return "student";
}

RendererContext student_context(const std::string& student_dir, const std::string& timeout_text) {
    RendererContext ctx;
    ctx.student_dir = student_dir;
    ctx.student_timeout_s = parse_whole_number(timeout_text, "--student-timeout", 1, 3600,
                                               "use whole seconds, 1..3600");
    ctx.on_note = [](const std::string& note) { std::fprintf(stderr, "%s\n", note.c_str()); };
    return ctx;
}

int run_build_only(const RenderArgs& a) {
    if (a.student_dir.empty()) throw std::invalid_argument("--build-only goes with --student DIR");
    student::BuildOptions o;
    o.dir = a.student_dir;
    const student::BuildResult b = student::build_student(o);
    if (b.cached) std::printf("student: unchanged since the last build\n");
    else std::printf("student: built in %.1f s\n", b.seconds);
    std::printf("  library:  %s\n  build folder (sources as compiled, build.log): %s\n  for: %s\n  your files:",
                b.library.c_str(), b.build_dir.c_str(), b.arch_flags.c_str());
    for (const auto& f : b.sources) std::printf(" %s", f.c_str());
    std::printf("\n");
    if (!b.ignored.empty()) {
        std::printf("  ignored (the course's framework files come from this project):");
        for (const auto& f : b.ignored) std::printf(" %s", f.c_str());
        std::printf("\n");
    }
    return kExitOk;
}

}  // namespace cr
