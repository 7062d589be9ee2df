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

#include "render/core/text.h"
#include "render/student/course_files.h"
#include "render/student/process.h"

namespace fs = std::filesystem;

namespace cr::student {

namespace {

constexpr const char* kLibraryName = "libstudent.so";
constexpr const char* kPreludeName = "cr_prelude.h";
constexpr const char* kEntryName = "cr_student_entry.cu";
constexpr const char* kAbiName = "cr_worker_abi.h";  ///< the entry's call into the worker
constexpr const char* kOriginals = "cr_orig";  ///< staged originals behind a harness wrapper

void write_file(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + p.string());
}

/// One file of the build folder: its name there and its bytes.
struct SourceText {
    std::string name, text;
};

/// `text` with CRLF (and lone CR) line endings as LF: the same lines.
std::string lf_lines(const std::string& text, bool& had_crlf) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\r') {
            out += text[i];
            continue;
        }
        had_crlf = true;
        if (i + 1 >= text.size() || text[i + 1] != '\n') out += '\n';
    }
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

/// The wrapper staged as exclusiveScan.cu_inl when the student's copy uses
/// SCAN_BLOCK_DIM: it defines it (1024) only where the including file did
/// not, then includes the student's file unchanged (staged in cr_orig/).
std::string scan_wrapper(const std::string& name) {
    return "// circle-renderer harness: your " + name + " uses SCAN_BLOCK_DIM; where the file that includes it\n"
           "// defined none, it gets 1024 here (your file itself is included unchanged).\n"
           "#ifndef SCAN_BLOCK_DIM\n#define SCAN_BLOCK_DIM 1024\n#define CR_HARNESS_SCAN_BLOCK_DIM\n#endif\n"
           "#include \"" + std::string(kOriginals) + "/" + name + "\"\n"
           "#ifdef CR_HARNESS_SCAN_BLOCK_DIM\n#undef SCAN_BLOCK_DIM\n#undef CR_HARNESS_SCAN_BLOCK_DIM\n#endif\n";
}

/// Everything the build folder holds: the student's files (as LF), the
/// include-case copies, the project's framework files the folder lacks, the
/// harness's entry and the prelude. `crlf` gets the student's CRLF files.
std::vector<SourceText> staged_files(const CourseFolder& f, std::vector<std::string>& crlf) {
    std::vector<SourceText> out;
    for (const auto& t : f.texts) {
        bool had = false;
        std::string text = lf_lines(t.text, had);
        if (had) crlf.push_back(t.name);
        if (t.name == "exclusiveScan.cu_inl" && text.find("SCAN_BLOCK_DIM") != std::string::npos) {
            out.push_back({std::string(kOriginals) + "/" + t.name, text});
            text = scan_wrapper(t.name);
        }
        out.push_back({t.name, text});
    }
    for (const auto& [spelling, file] : f.include_aliases)
        for (const auto& staged : std::vector<SourceText>(out))
            if (staged.name == file) out.push_back({spelling, staged.text});
    for (const auto& [name, text] : embedded_course_files())
        if (name == kEntryName || name == kAbiName || name == "platformgl.h" ||
            std::find(f.from_project.begin(), f.from_project.end(), name) != f.from_project.end())
            out.push_back({name, text});
    out.push_back({kPreludeName, prelude_text(out)});
    return out;
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

/// The nvcc command, run in the build folder (`src`, "" for the cache key).
std::vector<std::string> nvcc_command(const std::string& nvcc, const std::string& arch, const CourseFolder& f,
                                      const fs::path& src) {
    std::vector<std::string> cmd = {nvcc, "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-lineinfo",
                                    "--threads", "0", "-I.", "-include", kPreludeName, "-o", kLibraryName};
    if (!f.layout.seeds) cmd.push_back("-DCR_COURSE_NO_SEED");  // for the project's circleRenderer.h, when used
    // The device-memory budget: the student's allocations go through the entry's __wrap_ functions.
    for (const char* fn : {"cudaMalloc", "cudaMallocManaged", "cudaMallocPitch", "cudaMallocAsync", "cudaFree",
                           "cudaFreeAsync"})
        cmd.insert(cmd.end(), {"-Xlinker", std::string("--wrap=") + fn});
    cmd.insert(cmd.end(), f.nvcc_flags.begin(), f.nvcc_flags.end());
    for (const auto& flag : split_words(arch)) cmd.push_back(flag);
    // Absolute paths, so the compiler's messages name files we can map back.
    for (const auto& name : f.compiled) cmd.push_back((src / name).string());
    cmd.push_back((src / kEntryName).string());
    return cmd;
}

/// The cache key: a hash of everything the build depends on (compiler and
/// its version, the command, every staged file).
std::string key_of(const std::string& nvcc, const std::string& arch, const CourseFolder& f,
                   const std::vector<SourceText>& staged) {
    std::string all = "circle-renderer student build 2\n" + nvcc + "\n" + nvcc_version(nvcc) + "\n";
    for (const auto& part : nvcc_command("nvcc", arch, f, "")) all += part + " ";
    for (const auto& file : staged) all += "\n" + file.name + "\n" + std::to_string(file.text.size()) + "\n" + file.text;
    return sha256_hex(all).substr(0, 24);
}

/// Compiles the staged sources in `work/src`; throws BuildError on failure.
void compile(const std::string& nvcc, const std::string& arch, const CourseFolder& f, const fs::path& work,
             double timeout_s) {
    const fs::path src = work / "src";
    const CapturedRun run = run_captured(nvcc_command(nvcc, arch, f, src), timeout_s, src.string());
    const std::string messages = map_compiler_paths(run.output, src.string(), f.dir, f.used(), f.include_aliases);
    write_file(work / "build.log", run.output);
    if (run.timed_out)
        throw BuildError("the compile of " + f.dir + " took longer than " + std::to_string(static_cast<int>(timeout_s)) +
                             " s and was stopped",
                         messages);
    if (run.term_signal != 0 || run.exit_code != 0 || !fs::exists(src / kLibraryName)) {
        std::string headline;
        const std::string summary = explain_build_failure(messages, f, headline);
        throw BuildError("your renderer in " + f.dir + " did not compile: " + headline, summary + "\n" + messages);
    }
    fs::rename(src / kLibraryName, work / kLibraryName);
}

}  // namespace

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

std::string folder_content_hash(const std::string& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code e2;
        if ((is_build_input(name) || name == "snow.par") && it->is_regular_file(e2)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    std::string all = "circle-renderer folder 1\n";
    for (const auto& f : files) {
        const std::string bytes = read_file_bytes(f.string());
        all += f.filename().string() + "\n" + std::to_string(bytes.size()) + "\n" + bytes;
    }
    return sha256_hex(all);
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
                               const std::vector<std::string>& student_files,
                               const std::vector<std::pair<std::string, std::string>>& aliases) {
    const auto shown = [&](const std::string& staged) {
        std::string name = staged;
        if (starts_with(name, std::string(kOriginals) + "/")) name = name.substr(std::string(kOriginals).size() + 1);
        for (const auto& [spelling, file] : aliases)
            if (name == spelling) name = file;
        if (std::find(student_files.begin(), student_files.end(), name) != student_files.end())
            return (fs::path(student_dir) / name).string();
        return (name == kEntryName || name == kAbiName || name == kPreludeName ? "harness/" : "course/") + name;
    };
    std::string out = output;
    const std::string prefix = stage_dir + "/";
    for (size_t pos = out.find(prefix); pos != std::string::npos; pos = out.find(prefix, pos)) {
        size_t end = pos + prefix.size();
        while (end < out.size() && out[end] != ':' && out[end] != '(' && out[end] != '"' && out[end] != '\n' &&
               out[end] != ' ')
            ++end;
        const std::string repl = shown(out.substr(pos + prefix.size(), end - pos - prefix.size()));
        out.replace(pos, end - pos, repl);
        pos += repl.size();
    }
    return out;
}

std::string map_build_paths(const std::string& text, const BuildResult& b) {
    const fs::path final_dir(b.build_dir);
    const std::string key = final_dir.filename().string(), stage = (final_dir / "src").string();
    const std::regex temporary("[^\\s\"'(]*/tmp-[0-9]+-" + key + "/src/");  // compiled there, then renamed
    std::string canonical = std::regex_replace(text, temporary, stage + "/");
    // compute-sanitizer names a file the line info holds without its folder
    // (a header or .cu_inl included by a relative name) by the bare name: the
    // staged file of that name
    const std::regex bare(R"(( in )([^/\s:]+)(:\d+))");
    const std::vector<std::string> used = b.folder.used();
    std::vector<std::string> theirs = used;
    for (const auto& alias : b.folder.include_aliases) theirs.push_back(alias.first);  // mapped to the file on disk below
    std::string sited;
    auto from = canonical.cbegin();
    for (std::sregex_iterator it(canonical.begin(), canonical.end(), bare), e; it != e; ++it) {
        const std::smatch& m = *it;
        sited.append(from, m[0].first);
        const bool known = std::find(theirs.begin(), theirs.end(), m[2].str()) != theirs.end();
        sited += known ? m[1].str() + stage + "/" + m[2].str() + m[3].str() : m[0].str();
        from = m[0].second;
    }
    sited.append(from, canonical.cend());
    return map_compiler_paths(sited, stage, b.folder.dir, used, b.folder.include_aliases);
}

BuildResult build_student(const BuildOptions& o) {
    const CourseFolder folder = read_course_folder(o.dir);
    BuildResult res;
    res.folder = folder;
    res.folder.texts.clear();  // the bytes are the build's, not the result's
    const std::string nvcc = find_nvcc(o.nvcc);
    if (nvcc.empty())
        throw NvccMissing("no nvcc (CUDA toolkit) found on PATH, in $CUDA_HOME or /usr/local/cuda: it is needed to build your renderer");
    res.arch_flags = o.arch_flags.empty() ? default_arch_flags() : o.arch_flags;
    const std::vector<SourceText> staged = staged_files(folder, res.crlf);
    const fs::path root = cache_root(o.cache_root);
    const fs::path final_dir = root / key_of(nvcc, res.arch_flags, folder, staged);
    res.build_dir = final_dir.string();
    res.library = (final_dir / kLibraryName).string();
    if (fs::exists(res.library)) {
        res.cached = true;
        return res;
    }
    const fs::path work = root / ("tmp-" + std::to_string(getpid()) + "-" + final_dir.filename().string());
    fs::remove_all(work);
    for (const auto& file : staged) write_file(work / "src" / file.name, file.text);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        compile(nvcc, res.arch_flags, folder, work, o.timeout_s);
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
