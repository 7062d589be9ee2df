// Building a student's course-format renderer into a shared library.
//
// From the student's folder it takes cudaRenderer.cu, cudaRenderer.h and
// every other source file that is not a course framework file; the framework
// files come from the project (render/student/course/, embedded in the
// binary), so the student's copies are ignored. Everything is staged into a
// build folder of the cache and compiled there with nvcc (-O3, C++17, thrust
// and CUB available) into libstudent.so. The cache key is a SHA-256 of the
// inputs' names and contents, the flags and the toolkit's version, so a
// second run with nothing changed starts at once.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace cr::student {

/// Options of build_student.
struct BuildOptions {
    std::string dir;         ///< the student's folder (the course's render/)
    std::string nvcc;        ///< nvcc to use ("" = $CR_NVCC if set (exactly), else PATH, $CUDA_HOME, /usr/local/cuda, configure time)
    std::string arch_flags;  ///< -gencode flags ("" = the local GPU's, or sm_75..sm_90 + PTX without one)
    std::string cache_root;  ///< "" = $CR_STUDENT_CACHE, else $XDG_CACHE_HOME or ~/.cache, /circle-renderer/student
    double timeout_s = 900;  ///< longest compile allowed
};

/// A finished build.
struct BuildResult {
    std::string library;    ///< path of libstudent.so
    std::string build_dir;  ///< the cache folder holding it, the staged sources and build.log
    bool cached = false;    ///< true when an earlier build with the same key was reused
    double seconds = 0;     ///< compile time (0 when cached)
    std::vector<std::string> sources;  ///< the student's files used, names relative to the folder
    std::vector<std::string> ignored;  ///< the student's copies of framework files (replaced by ours)
    std::string arch_flags;            ///< the -gencode flags used
};

/// The student's code did not compile: what() says so in one line and
/// `messages` holds the compiler's output with paths of the student's own
/// files (exit code 2).
struct BuildError : std::runtime_error {
    BuildError(const std::string& what, std::string compiler_messages)
        : std::runtime_error(what), messages(std::move(compiler_messages)) {}
    std::string messages;
};

/// No nvcc on this machine (exit code 3).
struct NvccMissing : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Builds (or finds in the cache) the student's renderer. Throws
/// std::invalid_argument for a folder that is not a course render/ folder,
/// NvccMissing, BuildError.
BuildResult build_student(const BuildOptions& options);

/// Checks that `dir` is a course render/ folder: a folder holding
/// cudaRenderer.cu and cudaRenderer.h. Throws std::invalid_argument saying
/// "--student 'DIR' is not a folder: ..." or "--student 'DIR' has no
/// cudaRenderer.cu: ..." (DIR as given) otherwise; build_student calls it
/// first.
void check_student_folder(const std::string& dir);

/// True when `name` (a file name, no folder) is one of the student's source
/// files that build_student takes: compiled sources (.cu, .cpp, .cc, .cxx)
/// and headers (.h, .hpp, .hh, .cuh, .cu_inl, .inl, .inc), by extension.
bool is_student_source(const std::string& name);

/// The course framework's file names (COURSE_INTERFACE.md), which the
/// harness takes from the project instead of the student's folder.
const std::vector<std::string>& framework_file_names();

/// nvcc as build_student would find it ("" when none).
std::string find_nvcc(const std::string& explicit_path = "");

/// -gencode flags for the local GPU (nvidia-smi's compute capability), or
/// sm_75, sm_80, sm_86, sm_89, sm_90 plus compute_90 PTX when there is none.
std::string default_arch_flags();

/// Replaces staged paths in compiler output: files of `stage_dir` that came
/// from the student's folder become paths in `student_dir`, the project's
/// framework files become "course/NAME" (they are not the student's to fix).
std::string map_compiler_paths(const std::string& output, const std::string& stage_dir,
                               const std::string& student_dir, const std::vector<std::string>& student_files);

}  // namespace cr::student
