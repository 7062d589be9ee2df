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

RendererContext student_context(const std::string& student_dir, const std::string& timeout_text,
                                const std::string& memory_text) {
    RendererContext ctx;
    ctx.student_dir = student_dir;
    if (!timeout_text.empty())
        ctx.student_timeout_s = parse_whole_number(timeout_text, "--student-timeout", 1, 3600, "use whole seconds, 1..3600");
    if (!memory_text.empty()) ctx.student_memory_bytes = parse_student_memory(memory_text);
    ctx.on_note = [](const std::string& note) { std::fprintf(stderr, "%s\n", note.c_str()); };
    return ctx;
}

namespace {

void print_names(const char* label, const std::vector<std::string>& names) {
    if (names.empty()) return;
    std::printf("  %s", label);
    for (const auto& n : names) std::printf(" %s", n.c_str());
    std::printf("\n");
}

/// Which of the folder's files the build took, which not, and why.
void print_folder(const student::BuildResult& b) {
    const student::CourseFolder& f = b.folder;
    std::printf("  folder:   %s\n  layout:   %s (%s)\n", f.dir.c_str(), student::layout_label(f.layout).c_str(),
                f.layout.evidence.c_str());
    if (f.makefile_used) std::printf("  sources:  as your %s builds them (goal '%s')\n", f.makefile.c_str(), f.reading.goal.c_str());
    else if (f.makefile.empty()) std::printf("  sources:  no Makefile: every source of yours, with the project's framework files\n");
    else std::printf("  sources:  your %s could not be read: every source of yours, as without one\n", f.makefile.c_str());
    print_names("compiled from your folder:", f.compiled);
    print_names("your headers and device helpers, as you wrote them:", f.headers);
    if (!f.replaced.empty()) std::printf("  not taken from your folder (the harness has its own):\n");
    for (const auto& r : f.replaced) std::printf("    %-20s %s\n", r.name.c_str(), r.why.c_str());
    print_names("in your folder but not built by your Makefile (so not by the course either):", f.not_built);
    print_names("from this project (your folder has none):", f.from_project);
    for (const auto& [spelling, file] : f.include_aliases)
        std::printf("  #include \"%s\" reads your %s (Linux file names are case-sensitive: the course's make "
                    "would stop here)\n", spelling.c_str(), file.c_str());
    print_names("CRLF line endings, compiled as LF (the same lines):", b.crlf);
    print_names("your Makefile's nvcc flags, passed on:", f.nvcc_flags);
    std::printf("  timing:   %s\n", student::benchmark_timing_text(f.benchmark).c_str());
    for (const auto& n : f.notes) std::printf("  note: %s\n", n.c_str());
}

}  // namespace

int run_build_only(const RenderArgs& a) {
    if (a.student_dir.empty()) throw std::invalid_argument("--build-only goes with --student DIR");
    student::BuildOptions o;
    o.dir = a.student_dir;
    const student::BuildResult b = student::build_student(o);
    if (b.cached) std::printf("student: unchanged since the last build\n");
    else std::printf("student: built in %.1f s\n", b.seconds);
    print_folder(b);
    std::printf("  library:  %s\n  build folder (sources as compiled, build.log): %s\n  for: %s\n",
                b.library.c_str(), b.build_dir.c_str(), b.arch_flags.c_str());
    return kExitOk;
}

}  // namespace cr
