// The summary a failed student build leads with (student_build.h,
// explain_build_failure): the first error in the student's own file first;
// an error in the harness's entry file said as what the harness expected of
// the student's class, with the course layout it assumed.
#include <algorithm>
#include <regex>
#include <sstream>

#include "render/student/student_build.h"

namespace cr::student {

namespace {

/// One "file(line): error: text" or "file:line:col: error: text" line.
struct ErrorLine {
    std::string file, line, text, whole;
};

std::vector<ErrorLine> error_lines(const std::string& output) {
    static const std::regex nvcc_style(R"(^(.+?)\((\d+)\): (?:catastrophic )?error:?\s*(.*)$)");
    static const std::regex gcc_style(R"(^(.+?):(\d+):(?:\d+:)? (?:fatal )?error:\s*(.*)$)");
    std::vector<ErrorLine> out;
    std::istringstream in(output);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
        if (std::regex_match(line, m, nvcc_style) || std::regex_match(line, m, gcc_style))
            out.push_back({m[1].str(), m[2].str(), m[3].str(), line});
    return out;
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

/// The members the course's main loop calls, as the harness calls them for `g`.
std::string expected_members(const LayoutGuess& g) {
    return std::string("a public default constructor and getImage(), setup(), ") +
           (g.seeds ? "loadScene(SceneName, int seed)" : "loadScene(SceneName)") +
           ", allocOutputImage(int, int), clearImage(), advanceAnimation(), render()";
}

/// What an error in the harness's entry file means for the student's class.
std::string entry_meaning(const ErrorLine& e, const CourseFolder& f) {
    const std::string layout = layout_label(f.layout) + " (" + f.layout.evidence + ")";
    const std::string circle = f.from_project.end() == std::find(f.from_project.begin(), f.from_project.end(),
                                                                 std::string("circleRenderer.h"))
                                   ? "your circleRenderer.h"
                                   : "the course's circleRenderer.h of that layout";
    if (has(e.text, "abstract class"))
        return "your class CudaRenderer does not implement every pure virtual member that " + circle +
               " declares; the harness read your folder as " + layout + " and calls " + expected_members(f.layout);
    if (has(e.text, "constructor") || has(e.text, "inaccessible"))
        return "the harness creates your renderer with `new CudaRenderer()` and calls its members as the course's "
               "main.cpp does: it needs " + expected_members(f.layout) + ", all public (" + e.text + ")";
    if (has(e.text, "has no member") || has(e.text, "no instance of"))
        return "the harness calls " + expected_members(f.layout) + " on your CudaRenderer, reading your folder as " +
               layout + ": " + e.text;
    if (has(e.text, "CudaRenderer") || has(e.text, "incomplete type"))
        return "your cudaRenderer.h must define class CudaRenderer (derived from CircleRenderer): " + e.text;
    return "the harness's entry file, which calls your CudaRenderer as the course's main.cpp does (" + layout +
           "), did not compile against your headers: " + e.text;
}

/// Advice for the student's own first error.
std::string own_advice(const ErrorLine& e) {
    static const std::regex missing(R"re(cannot open source file "([^"]+)"|([^ :]+): No such file or directory)re");
    std::smatch m;
    if (std::regex_search(e.text, m, missing)) {
        const std::string name = m[1].matched ? m[1].str() : m[2].str();
        return "  What you can do: " + name + " is not in your folder; the harness builds from your folder's own "
               "files (top level only) and the course's framework files.\n";
    }
    return "  What you can do: fix it in your file; `make` in your folder stops at the same line.\n";
}

}  // namespace

std::string explain_build_failure(const std::string& mapped_output, const CourseFolder& f, std::string& headline) {
    const std::vector<ErrorLine> errors = error_lines(mapped_output);
    const std::string mine = f.dir + "/";
    const ErrorLine* own = nullptr;
    const ErrorLine* entry = nullptr;
    for (const auto& e : errors) {
        if (!own && e.file.compare(0, mine.size(), mine) == 0) own = &e;
        if (!entry && e.file.rfind("harness/", 0) == 0) entry = &e;
    }
    std::string out;
    if (own) {
        headline = own->whole;
        out = "First error in your files:\n  " + own->whole + "\n" + own_advice(*own);
    } else if (entry) {
        headline = entry_meaning(*entry, f);
        out = "The harness could not use your class (the error is in its entry file " + entry->file + ", not yours):\n  " +
              headline + "\n  What you can do: compare your cudaRenderer.h with " +
              (f.layout.seeds ? "the course's" : "your year's") + " circleRenderer.h; `make` in your folder shows the course's own error.\n";
    } else if (!errors.empty()) {
        headline = errors.front().whole;
        out = "First error (in a file of the course framework that the project supplies, because your folder has none):\n  " +
              headline + "\n";
    } else {
        headline = "nvcc failed without an error line (see its output below)";
        out = headline + "\n";
    }
    out += "  Your folder, as the harness read it: " + layout_label(f.layout) + " (" + f.layout.evidence + ")";
    if (!f.makefile_used) out += f.makefile.empty() ? "; no Makefile" : "; its Makefile could not be read";
    out += "\n";
    for (const auto& n : f.notes) out += "  note: " + n + "\n";
    return out;
}

}  // namespace cr::student
