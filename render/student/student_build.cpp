#include "render/student/student_build.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "render/student/course_files.h"
#include "render/student/process.h"

namespace fs = std::filesystem;

namespace cr::student {

namespace {

constexpr const char* kLibraryName = "libstudent.so";
constexpr const char* kPreludeName = "cr_prelude.h";
constexpr const char* kEntryName = "cr_student_entry.cu";

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_compiled_source(const std::string& name) {
    for (const char* ext : {".cu", ".cpp", ".cc", ".cxx"})
        if (ends_with(name, ext)) return true;
    return false;
}

bool is_header(const std::string& name) {
    for (const char* ext : {".h", ".hpp", ".hh", ".cuh", ".cu_inl", ".inl", ".inc"})
        if (ends_with(name, ext)) return true;
    return false;
}

std::string read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + p.string());
}

/// The student's files the build uses (sorted), and their framework copies.
void collect_student_files(const fs::path& dir, std::vector<std::string>& used, std::vector<std::string>& ignored) {
    const auto& framework = framework_file_names();
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (!entry.is_regular_file()) continue;
        const std::string name = entry.path().filename().string();
        if (!is_student_source(name)) continue;
        if (std::find(framework.begin(), framework.end(), name) != framework.end()) ignored.push_back(name);
        else used.push_back(name);
    }
    std::sort(used.begin(), used.end());
    std::sort(ignored.begin(), ignored.end());
}

/// One of the student's files as read once: what is hashed, scanned and
/// staged is the same bytes.
struct SourceText {
    std::string name, text;
};

/// Reads the student's files `names` in `dir`.
std::vector<SourceText> read_sources(const fs::path& dir, const std::vector<std::string>& names) {
    std::vector<SourceText> out;
    for (const auto& name : names) out.push_back({name, read_file(dir / name)});
    return out;
}

/// A header the harness force-includes first: the thrust and CUB headers the
/// student includes, so they are parsed before any macro of the student's
/// (e.g. `#define uint unsigned int`, which breaks CUDA 12/13's headers when
/// they come after it; their include guards keep them from being read again).
std::string prelude_text(const std::vector<SourceText>& files) {
    static const std::regex include_re(R"(^\s*#\s*include\s*[<"]((thrust|cub)/[^>"]+)[>"])");
    std::set<std::string> headers;
    for (const auto& file : files) {
        std::istringstream in(file.text);
        std::string line;
        std::smatch m;
        while (std::getline(in, line))
            if (std::regex_search(line, m, include_re)) headers.insert(m[1].str());
    }
    std::string text = "// Written by circle-renderer's student harness: see render/student/student_build.h.\n#ifdef __CUDACC__\n";
    for (const auto& h : headers) text += "#include <" + h + ">\n";
    return text + "#endif\n";
}

std::string sha256_hex(const std::string& data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
    std::string hex;
    char buf[3];
    for (unsigned int i = 0; i < len; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", digest[i]);
        hex += buf;
    }
    return hex;
}

std::string nvcc_version(const std::string& nvcc) {
    const CapturedRun r = run_captured({nvcc, "--version"}, 60);
    return r.output;
}

std::string cache_root(const std::string& explicit_root) {
    if (!explicit_root.empty()) return explicit_root;
    if (const char* c = std::getenv("CR_STUDENT_CACHE")) return c;
    if (const char* x = std::getenv("XDG_CACHE_HOME")) return std::string(x) + "/circle-renderer/student";
    if (const char* h = std::getenv("HOME")) return std::string(h) + "/.cache/circle-renderer/student";
    return "/tmp/circle-renderer-student-cache";
}

std::vector<std::string> split_flags(const std::string& flags) {
    std::vector<std::string> out;
    std::istringstream in(flags);
    std::string f;
    while (in >> f) out.push_back(f);
    return out;
}

/// Writes the student's files and the project's framework files into `src`.
void stage(const std::vector<SourceText>& files, const std::string& prelude, const fs::path& src) {
    fs::create_directories(src);
    for (const auto& file : files) write_file(src / file.name, file.text);
    for (const auto& [name, text] : embedded_course_files()) write_file(src / name, text);
    write_file(src / kPreludeName, prelude);
}

std::vector<std::string> nvcc_command(const std::string& nvcc, const std::string& arch, const std::vector<std::string>& files,
                                      const fs::path& src) {
    std::vector<std::string> cmd = {nvcc, "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-lineinfo",
                                    "--threads", "0", "-include", kPreludeName, "-o", kLibraryName};
    for (const auto& f : split_flags(arch)) cmd.push_back(f);
    // Absolute paths, so the compiler's messages name files we can map back.
    for (const auto& name : files)
        if (is_compiled_source(name)) cmd.push_back((src / name).string());
    cmd.push_back((src / kEntryName).string());
    return cmd;
}

/// The cache key: a hash of everything the build depends on (compiler and
/// its version, flags, the course files, the student's files, the prelude).
std::string key_of(const std::string& nvcc, const std::string& arch, const std::vector<std::string>& names,
                   const std::vector<SourceText>& files, const std::string& prelude) {
    std::string all = "circle-renderer student build 1\n" + nvcc + "\n" + nvcc_version(nvcc) + "\n" + arch + "\n";
    for (const auto& part : nvcc_command("nvcc", arch, names, "")) all += part + " ";
    for (const auto& [name, text] : embedded_course_files()) all += "\ncourse/" + name + "\n" + text;
    for (const auto& file : files) all += "\nstudent/" + file.name + "\n" + file.text;
    return sha256_hex(all + prelude).substr(0, 24);
}

/// Compiles the staged sources in `work/src`; throws BuildError on failure.
void compile(const std::string& nvcc, const std::string& arch, const std::vector<std::string>& files,
             const fs::path& work, const fs::path& student_dir, double timeout_s) {
    const fs::path src = work / "src";
    const CapturedRun run = run_captured(nvcc_command(nvcc, arch, files, src), timeout_s, src.string());
    const std::string messages = map_compiler_paths(run.output, src.string(), student_dir.string(), files);
    write_file(work / "build.log", run.output);
    if (run.timed_out)
        throw BuildError("the compile of " + student_dir.string() + " took longer than " +
                             std::to_string(static_cast<int>(timeout_s)) + " s and was stopped",
                         messages);
    if (run.term_signal != 0 || run.exit_code != 0 || !fs::exists(src / kLibraryName))
        throw BuildError("your renderer in " + student_dir.string() + " did not compile (nvcc: " + run.exit_text + ")",
                         messages);
    fs::rename(src / kLibraryName, work / kLibraryName);
}

}  // namespace

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

bool is_student_source(const std::string& name) { return is_compiled_source(name) || is_header(name); }

const std::vector<std::string>& framework_file_names() {
    static const std::vector<std::string> names = {
        "circleRenderer.h", "image.h", "sceneLoader.h", "sceneLoader.cpp", "noise.h", "noise.cpp", "util.h",
        "CycleTimer.h", "cycleTimer.h", "ppm.h", "ppm.cpp", "refRenderer.h", "refRenderer.cpp", "platformgl.h",
        "main.cpp", "display.cpp", "benchmark.cu", "exclusiveScan.cu_inl", "circleBoxTest.cu_inl",
        "lookupColor.cu_inl", "noiseCuda.cu_inl"};
    return names;
}

std::string find_nvcc(const std::string& explicit_path) {
    std::string exact = explicit_path;
    if (exact.empty())
        if (const char* e = std::getenv("CR_NVCC")) exact = e;
#ifdef CR_CONFIGURE_NVCC
    return find_cuda_tool("nvcc", exact, {CR_CONFIGURE_NVCC});  // the one CMake found, last
#else
    return find_cuda_tool("nvcc", exact);
#endif
}

std::string default_arch_flags() {
    const std::string smi = find_on_path("nvidia-smi");
    if (!smi.empty()) {
        try {
            const CapturedRun r = run_captured({smi, "--query-gpu=compute_cap", "--format=csv,noheader"}, 20);
            int major = 0, minor = 0;
            if (!r.timed_out && r.exit_code == 0 && std::sscanf(r.output.c_str(), "%d.%d", &major, &minor) == 2 &&
                major >= 7) {
                const std::string cc = std::to_string(major) + std::to_string(minor);
                return "-gencode arch=compute_" + cc + ",code=sm_" + cc;
            }
        } catch (const ProcessError&) {
        }
    }
    std::string flags;
    for (const char* cc : {"75", "80", "86", "89", "90"})
        flags += std::string("-gencode arch=compute_") + cc + ",code=sm_" + cc + " ";
    return flags + "-gencode arch=compute_90,code=compute_90";
}

std::string map_compiler_paths(const std::string& output, const std::string& stage_dir, const std::string& student_dir,
                               const std::vector<std::string>& student_files) {
    std::string out = output;
    const std::string prefix = stage_dir + "/";
    for (size_t pos = out.find(prefix); pos != std::string::npos; pos = out.find(prefix, pos)) {
        size_t end = pos + prefix.size();
        while (end < out.size() && out[end] != ':' && out[end] != '(' && out[end] != '"' && out[end] != '\n' &&
               out[end] != ' ')
            ++end;
        const std::string name = out.substr(pos + prefix.size(), end - pos - prefix.size());
        const bool mine = std::find(student_files.begin(), student_files.end(), name) != student_files.end();
        const std::string repl = mine ? (fs::path(student_dir) / name).string() : "course/" + name;
        out.replace(pos, end - pos, repl);
        pos += repl.size();
    }
    return out;
}

BuildResult build_student(const BuildOptions& o) {
    const fs::path dir = fs::absolute(o.dir).lexically_normal();
    check_student_folder(dir.string());
    BuildResult res;
    collect_student_files(dir, res.sources, res.ignored);
    const std::string nvcc = find_nvcc(o.nvcc);
    if (nvcc.empty())
        throw NvccMissing("no nvcc (CUDA toolkit) found on PATH, in $CUDA_HOME or /usr/local/cuda: it is needed to build your renderer");
    res.arch_flags = o.arch_flags.empty() ? default_arch_flags() : o.arch_flags;
    const std::vector<SourceText> texts = read_sources(dir, res.sources);
    const std::string prelude = prelude_text(texts);
    const fs::path root = cache_root(o.cache_root);
    const fs::path final_dir = root / key_of(nvcc, res.arch_flags, res.sources, texts, prelude);
    res.build_dir = final_dir.string();
    res.library = (final_dir / kLibraryName).string();
    if (fs::exists(res.library)) {
        res.cached = true;
        return res;
    }
    const fs::path work = root / ("tmp-" + std::to_string(getpid()) + "-" + final_dir.filename().string());
    fs::remove_all(work);
    stage(texts, prelude, work / "src");
    const auto t0 = std::chrono::steady_clock::now();
    try {
        compile(nvcc, res.arch_flags, res.sources, work, dir, o.timeout_s);
    } catch (...) {
        std::error_code ec;
        if (!std::getenv("CR_KEEP_FAILED_BUILD")) fs::remove_all(work, ec);
        throw;
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::error_code ec;
    fs::rename(work, final_dir, ec);  // atomic publish; a concurrent twin may have won: use it
    if (ec) fs::remove_all(work, ec);
    return res;
}

}  // namespace cr::student
