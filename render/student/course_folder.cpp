// Reading a course folder (course_folder.h).
#include "render/student/course_folder.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "render/core/text.h"
#include "render/student/course_files.h"

namespace fs = std::filesystem;

namespace cr::student {

namespace {

std::string lower(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

/// The C++ text `s` with each // and /* */ comment replaced by a space; a
/// comment marker inside a string or character literal is not one. With
/// `blank_literals`, the literals' contents go too (their quotes stay), so
/// a name in a message is not taken for code.
std::string without_comments(const std::string& s, bool blank_literals = false) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s.compare(i, 2, "//") == 0) {
            i = s.find('\n', i);
            out += ' ';
            if (i == std::string::npos) break;
            out += '\n';
        } else if (s.compare(i, 2, "/*") == 0) {
            i = s.find("*/", i + 2);
            out += ' ';
            if (i == std::string::npos) break;
            ++i;
        } else if (s[i] == '"' || s[i] == '\'') {
            const char quote = s[i];
            out += quote;
            for (++i; i < s.size() && s[i] != quote && s[i] != '\n'; ++i) {
                if (s[i] == '\\' && i + 1 < s.size()) {
                    if (!blank_literals) out += s[i];
                    ++i;
                }
                if (!blank_literals) out += s[i];
            }
            if (i < s.size()) out += s[i];
        } else {
            out += s[i];
        }
    }
    return out;
}

/// The host programs the harness replaces, with why.
const std::map<std::string, std::string>& replaced_programs() {
    static const std::map<std::string, std::string> m = {
        {"main.cpp", "the course's main loop: the harness drives your CudaRenderer itself"},
        {"display.cpp", "the course's window: the GUI (render -i) shows your images"},
        {"benchmark.cu", "the course's benchmark: the harness times your calls the course's way"},
        {"benchmark.cpp", "the course's benchmark (an older year's name): the harness times your calls the course's way"},
        {"refRenderer.cpp", "the course's CPU reference: the harness checks against its own cpuref"},
        {"sceneLoader.cpp", "the course's scene loader: the harness hands your renderer its scenes (any seed)"},
        {"ppm.cpp", "the course's PPM writer: the harness provides writePPMImage"},
        {"noise.cpp", "the course's CPU noise: the harness provides getNoiseTables with the course's tables"},
        {"platformgl.h", "the course's OpenGL header for the window: the harness opens no window from your code"},
    };
    return m;
}

/// The folder's top-level regular files, sorted.
std::vector<std::string> list_files(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e2;
        if (it->is_regular_file(e2)) names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

/// The file of `names` whose name equals `spelling` ignoring case ("" if none).
std::string case_match(const std::vector<std::string>& names, const std::string& spelling) {
    for (const auto& n : names)
        if (lower(n) == lower(spelling)) return n;
    return "";
}

/// Sorts a folder's sources into compiled / replaced / not built, the
/// Makefile's way when it has one and can be read, else by today's rule.
void sort_sources(CourseFolder& f, const std::vector<std::string>& files) {
    std::vector<std::string> built;
    if (!f.makefile.empty()) {
        f.reading = read_makefile(read_file_bytes((fs::path(f.dir) / f.makefile).string()), files);
        f.makefile_used = f.reading.understood;
        for (const auto& n : f.reading.notes) f.notes.push_back(f.makefile + ": " + n);
        if (f.makefile_used) built = f.reading.sources;
        else f.notes.push_back(f.makefile + " names no source it builds: every source in the folder is used instead");
    }
    const auto& framework = framework_file_names();
    for (const auto& name : files) {
        if (!is_compiled_source_name(name)) continue;
        const char* why = replaced_program_reason(name);
        if (f.makefile_used && !contains(built, name)) f.not_built.push_back(name);
        else if (why) f.replaced.push_back({name, why});
        else if (!f.makefile_used && contains(framework, name))
            f.replaced.push_back({name, "a course framework file: without a Makefile the project's is used"});
        else f.compiled.push_back(name);
    }
}

/// Headers: the student's own, as written (without a Makefile only those
/// that are not framework files); the framework headers the folder lacks
/// come from the project.
void sort_headers(CourseFolder& f, const std::vector<std::string>& files) {
    const auto& framework = framework_file_names();
    for (const auto& name : files) {
        if (!is_header_name(name)) continue;
        if (const char* why = replaced_program_reason(name)) f.replaced.push_back({name, why});
        else if (!f.makefile_used && contains(framework, name))
            f.replaced.push_back({name, "a course framework file: without a Makefile the project's is used"});
        else f.headers.push_back(name);
    }
    for (const auto& [name, text] : embedded_course_files())  // the harness's own (cr_*) are staged by the build
        if (is_header_name(name) && !starts_with(name, "cr_") && case_match(f.headers, name).empty() &&
            !replaced_program_reason(name))
            f.from_project.push_back(name);
}

/// #include "X" spellings that name none of the staged files exactly but one
/// of the student's files ignoring case (Linux file names are case-sensitive).
void find_include_aliases(CourseFolder& f) {
    static const std::regex include_re(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"/\\]+)")re");
    const std::vector<std::string> used = f.used();
    for (const auto& t : f.texts) {
        std::istringstream in(t.text);
        std::string line;
        std::smatch m;
        while (std::getline(in, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (!std::regex_search(line, m, include_re)) continue;
            const std::string spelling = m[1].str();
            if (contains(used, spelling) || contains(f.from_project, spelling)) continue;
            const std::string file = case_match(used, spelling);
            const std::pair<std::string, std::string> alias{spelling, file};
            if (!file.empty() && !contains(f.headers, spelling) &&
                std::find(f.include_aliases.begin(), f.include_aliases.end(), alias) == f.include_aliases.end())
                f.include_aliases.push_back(alias);
        }
    }
}

const FolderText* text_of(const CourseFolder& f, const std::string& name) {
    for (const auto& t : f.texts)
        if (t.name == name) return &t;
    return nullptr;
}

}  // namespace

LayoutGuess guess_layout(const std::string& circle_renderer_h, const std::string& cuda_renderer_h) {
    static const std::regex seeded(R"(loadScene\s*\(\s*SceneName\b[^,)]*,)"), seedless(R"(loadScene\s*\(\s*SceneName\b[^,)]*\))");
    const std::string cr = without_comments(circle_renderer_h), cu = without_comments(cuda_renderer_h);
    LayoutGuess g;
    const std::string& decl = cr.empty() ? cu : cr;  // the pure virtual, else the student's own declaration
    g.seeds = std::regex_search(decl, seeded) || !std::regex_search(decl, seedless);
    if (!cr.empty()) g.scenes = cr.find("MICRO_2M") != std::string::npos ? 14 : (cr.find("CIRCLE_TEST_1M") != std::string::npos ? 13 : 12);
    g.layout = g.seeds ? CourseLayout::C : (g.scenes >= 13 ? CourseLayout::B : CourseLayout::A);
    const std::string load = g.seeds ? "loadScene(SceneName, int seed)" : "loadScene(SceneName)";
    g.evidence = cr.empty() ? "your cudaRenderer.h: " + load + " (no circleRenderer.h in the folder)"
                            : "your circleRenderer.h: " + std::to_string(g.scenes) + " scenes, " + load;
    return g;
}

std::string layout_label(const LayoutGuess& g) {
    const char* name = g.layout == CourseLayout::A ? "A (about 2019-2022)" : g.layout == CourseLayout::B ? "B (about 2023-2024)" : "C (October 2025 on)";
    return std::string("course layout ") + name + ": " + (g.seeds ? "seeds" : "no seeds") + ", " + std::to_string(g.scenes) + " scenes";
}

std::vector<std::string> CourseFolder::used() const {
    std::vector<std::string> all = compiled;
    all.insert(all.end(), headers.begin(), headers.end());
    std::sort(all.begin(), all.end());
    return all;
}

void check_student_folder(const std::string& dir_text) {
    const fs::path dir(dir_text);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw std::invalid_argument("--student '" + dir_text + "' is not a folder: point it at your course's render/ folder");
    for (const char* must : {"cudaRenderer.cu", "cudaRenderer.h"})
        if (!fs::is_regular_file(dir / must, ec))
            throw std::invalid_argument("--student '" + dir_text + "' has no " + must +
                                        ": point it at your course's render/ folder");
}

CourseFolder read_course_folder(const std::string& dir_text) {
    check_student_folder(dir_text);
    CourseFolder f;
    f.dir = fs::absolute(dir_text).lexically_normal().string();
    if (f.dir.size() > 1 && f.dir.back() == '/') f.dir.pop_back();
    const std::vector<std::string> files = list_files(f.dir);
    for (const char* name : {"GNUmakefile", "makefile", "Makefile"})  // make's search order
        if (f.makefile.empty() && contains(files, name)) f.makefile = name;
    sort_sources(f, files);
    sort_headers(f, files);
    for (const auto& name : f.used()) f.texts.push_back({name, read_file_bytes((fs::path(f.dir) / name).string())});
    find_include_aliases(f);
    const FolderText* cr = f.makefile_used ? text_of(f, "circleRenderer.h") : nullptr;
    const FolderText* cu = text_of(f, "cudaRenderer.h");
    f.layout = guess_layout(cr ? cr->text : "", cu ? cu->text : "");
    if (f.makefile_used) f.nvcc_flags = makefile_nvcc_flags(f.reading.cuda_command, f.dir, f.notes);
    if (access((fs::path(f.dir) / "snow.par").c_str(), R_OK) == 0) f.snow_par = f.dir + "/snow.par";
    for (const char* ref : {"render_ref", "render_ref_x86"})
        if (access((fs::path(f.dir) / ref).c_str(), X_OK) == 0) f.reference_binaries.push_back(f.dir + "/" + ref);
    for (const auto& r : f.replaced)  // the benchmark the course's binary of this folder is built with
        if (r.name == "benchmark.cu" || r.name == "benchmark.cpp") {
            f.benchmark.file = r.name;
            f.benchmark.syncs = benchmark_synchronizes(read_file_bytes((fs::path(f.dir) / r.name).string()));
        }
    return f;
}

std::string benchmark_timing_text(const BenchmarkTiming& t) {
    if (t.file.empty())
        return "no benchmark in your folder: render grade times your calls as the newest course does, each followed "
               "by cudaDeviceSynchronize()";
    if (t.syncs) return "your " + t.file + " follows each call with cudaDeviceSynchronize(): render grade times your calls so";
    return "your " + t.file + " reads the clock as each call returns (no cudaDeviceSynchronize(), as the course's benchmark "
           "of 2019-2022): render grade times your calls so, as the course's binary of your folder does, so T is the "
           "time to launch your work unless your calls wait for the GPU themselves";
}

bool benchmark_synchronizes(const std::string& source) {
    const std::string code = without_comments(source, /*blank_literals=*/true);
    return code.find("cudaDeviceSynchronize") != std::string::npos || code.find("cudaThreadSynchronize") != std::string::npos;
}

bool is_header_name(const std::string& name) {
    for (const char* ext : {".h", ".hpp", ".hh", ".cuh", ".cu_inl", ".inl", ".inc"})
        if (ends_with(name, ext)) return true;
    return false;
}

bool is_build_input(const std::string& name) {
    return is_compiled_source_name(name) || is_header_name(name) || name == "Makefile" || name == "makefile" ||
           name == "GNUmakefile";
}

const char* replaced_program_reason(const std::string& name) {
    const auto& m = replaced_programs();
    const auto it = m.find(name);
    return it == m.end() ? nullptr : it->second.c_str();
}

const std::vector<std::string>& framework_file_names() {
    static const std::vector<std::string> names = {
        "circleRenderer.h", "image.h", "sceneLoader.h", "sceneLoader.cpp", "noise.h", "noise.cpp", "util.h",
        "CycleTimer.h", "cycleTimer.h", "ppm.h", "ppm.cpp", "refRenderer.h", "refRenderer.cpp", "platformgl.h",
        "main.cpp", "display.cpp", "benchmark.cu", "benchmark.cpp", "exclusiveScan.cu_inl", "circleBoxTest.cu_inl",
        "lookupColor.cu_inl", "noiseCuda.cu_inl"};
    return names;
}

namespace {

/// Flags nvcc takes with their value as the next word.
bool takes_value(const std::string& w) {
    for (const char* f : {"-o", "-ccbin", "--compiler-bindir", "-arch", "--gpu-architecture", "-code", "--gpu-code",
                          "-gencode", "--generate-code", "-Xcompiler", "--compiler-options", "-Xptxas", "--ptxas-options",
                          "-maxrregcount", "--maxrregcount", "-std", "--std", "-I", "-D", "-U", "-x", "-Xlinker", "-l", "-L"})
        if (w == f) return true;
    return false;
}

bool kept_flag(const std::string& w) {
    for (const char* p : {"-D", "-U", "-O", "-Xptxas", "--ptxas-options", "-maxrregcount", "--maxrregcount", "-ftz",
                          "--ftz", "-prec-div", "--prec-div", "-prec-sqrt", "--prec-sqrt", "-fmad", "--fmad"})
        if (starts_with(w, p)) return true;
    for (const char* f : {"-use_fast_math", "--use_fast_math", "--expt-relaxed-constexpr", "--extended-lambda",
                          "--expt-extended-lambda", "-lineinfo", "--generate-line-info", "-G", "--device-debug", "-g"})
        if (w == f) return true;
    return false;
}

bool architecture_flag(const std::string& w) {
    for (const char* p : {"-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code"})
        if (starts_with(w, p)) return true;
    return false;
}

}  // namespace

std::vector<std::string> makefile_nvcc_flags(const std::vector<std::string>& cmd, const std::string& dir,
                                             std::vector<std::string>& notes) {
    std::vector<std::string> kept, dropped;
    for (size_t i = 0; i < cmd.size(); ++i) {
        const std::string w = cmd[i];
        if (w.empty() || w[0] != '-') continue;  // the compiler, the source, the object
        const bool pair = takes_value(w) && i + 1 < cmd.size();
        const std::string joined = pair ? w + (starts_with(w, "--") ? "=" : " ") + cmd[i + 1] : w;
        if (pair) ++i;
        if (w == "-c" || w == "-m64" || w == "-o" || is_compiled_source_name(w)) continue;
        if (starts_with(w, "-I")) {
            std::string path = pair ? cmd[i] : w.substr(2);
            if (!path.empty() && path[0] != '/') path = (fs::path(dir) / path).lexically_normal().string();
            kept.push_back("-I" + path);
        } else if (w == "-D" || w == "-U" || w == "-Xptxas" || w == "--ptxas-options" || w == "-maxrregcount" ||
                   w == "--maxrregcount") {
            if (pair) kept.insert(kept.end(), {w, cmd[i]});
        } else if (kept_flag(w)) {
            kept.push_back(w);
        } else {
            dropped.push_back(joined);
        }
    }
    std::vector<std::string> arch, other;
    for (const auto& d : dropped) (architecture_flag(d) ? arch : other).push_back(d);
    auto line = [](const std::vector<std::string>& ws) {
        std::string s;
        for (const auto& w : ws) s += (s.empty() ? "" : " ") + w;
        return s;
    };
    if (!arch.empty()) notes.push_back("the Makefile's " + line(arch) + " is not used: the harness builds for this machine's GPU");
    if (!other.empty())
        notes.push_back("the Makefile's nvcc flags " + line(other) +
                        " are not used (the harness compiles with -O3 -std=c++17 into a shared library)");
    return kept;
}

}  // namespace cr::student
