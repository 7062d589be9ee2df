// Building a student's course-format renderer into a shared library.
//
// The folder is read the way the course grades it (course_folder.h): its
// Makefile decides which sources exist; the student's own headers and device
// helpers (exclusiveScan.cu_inl, image.h, cudaRenderer.h, circleRenderer.h,
// ...) are compiled as they wrote them; only the host programs the harness
// replaces (main loop, window, benchmark, CPU reference, scene loader, PPM
// writer, CPU noise) are not taken, and framework headers the folder lacks
// come from the project (render/student/course/, embedded in the binary). A
// folder without a Makefile keeps the older rule: its non-framework files
// with the project's framework files.
//
// Everything is staged into a build folder of the cache, with three
// compatibility steps that keep the student's lines as they are: CRLF line
// endings become LF, an #include whose case differs from the file on disk
// gets a copy under the included name, and an exclusiveScan.cu_inl that uses
// SCAN_BLOCK_DIM is given one (1024) where the including file defined none.
// nvcc (-O3, C++17, the Makefile's own defines and math flags) compiles it
// with the harness's entry file (course/cr_student_entry.cu) into
// libstudent.so. The cache key is a SHA-256 of the staged files, the command
// and the toolkit's version, so a second run with nothing changed starts at
// once.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "render/student/course_folder.h"

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
    std::vector<std::string> crlf;     ///< the student's files that had CRLF line endings
    std::string arch_flags;            ///< the -gencode flags used
    CourseFolder folder;               ///< the folder as read (without the files' bytes): used() and replaced say what was taken
};

/// The student's code did not compile: what() says so in one line, leading
/// with the first error in the student's own file (or what the harness
/// expected of their class), and `messages` holds that summary with advice,
/// then the compiler's output with paths of the student's own files (exit
/// code 2).
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

/// SHA-256 of `data` as 64 hex digits (OpenSSL).
std::string sha256_hex(const std::string& data);

/// The content hash of a course folder: SHA-256 over the names and bytes of
/// its build inputs (is_build_input) and its snow.par, sorted by name. Two
/// folders with the same hash grade the same.
std::string folder_content_hash(const std::string& dir);

/// nvcc as build_student would find it ("" when none).
std::string find_nvcc(const std::string& explicit_path = "");

/// -gencode flags for the local GPU (nvidia-smi's compute capability), or
/// sm_75, sm_80, sm_86, sm_89, sm_90 plus compute_90 PTX when there is none.
std::string default_arch_flags();

/// Replaces staged paths in compiler output: a staged file of the student's
/// (`student_files`, or an include spelling of `aliases` (spelling, file))
/// becomes its path in `student_dir`; the harness's entry and prelude become
/// "harness/NAME"; the project's framework files "course/NAME" (neither is
/// the student's to fix).
std::string map_compiler_paths(const std::string& output, const std::string& stage_dir,
                               const std::string& student_dir, const std::vector<std::string>& student_files,
                               const std::vector<std::pair<std::string, std::string>>& aliases = {});

/// Paths of the build's staged sources in `text` (as the line info of the
/// library names them: the temporary build folder it was compiled in, or its
/// cache folder) as paths of the student's own files (map_compiler_paths).
std::string map_build_paths(const std::string& text, const BuildResult& build);

/// The summary a failed build leads with (pure, on the mapped compiler
/// output): `headline` gets one line (the first error in the student's own
/// file, else what the harness expected of their class and the layout it
/// assumed); the return value is that line with advice on what the student
/// can do and which part of the folder the harness could not use.
std::string explain_build_failure(const std::string& mapped_output, const CourseFolder& folder, std::string& headline);

}  // namespace cr::student
