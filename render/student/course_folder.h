// A student's course folder (the course's render/), read once the way the
// course grades it: which course layout (year) its framework is, which
// sources its Makefile builds, which of them are host programs the harness
// replaces, which headers and device helpers are the student's own, which
// framework files the folder lacks, the include spellings that differ in
// case from the files on disk, its snow.par and its render_ref. The build,
// the GUI's file watcher and `render grade` all use this one answer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "render/student/makefile_reader.h"

namespace cr::student {

/// The course's folder over the years (../shared/COURSE_INTERFACE.md).
enum class CourseLayout { A, B, C };

/// What a folder's framework headers say about its course year.
struct LayoutGuess {
    CourseLayout layout = CourseLayout::C;
    bool seeds = true;     ///< loadScene(SceneName, int seed) (layout C) rather than loadScene(SceneName)
    int scenes = 14;       ///< values of SceneName: 12 (layout A) or 14
    std::string evidence;  ///< where it was read, e.g. "circleRenderer.h: 12 scenes, loadScene(SceneName)"
};

/// Reads the layout from the texts of the student's circleRenderer.h and
/// cudaRenderer.h ("" for a file the folder lacks). Pure. Without a
/// circleRenderer.h the scene count is 14 and the seed is read from
/// cudaRenderer.h's loadScene.
LayoutGuess guess_layout(const std::string& circle_renderer_h, const std::string& cuda_renderer_h);

/// "course layout A (about 2019-2022): no seeds, 12 scenes".
std::string layout_label(const LayoutGuess& g);

/// One of the student's files as read (CRLF kept; the build normalizes).
struct FolderText {
    std::string name, text;
};

/// A file of the folder that the harness does not take, and why.
struct Replaced {
    std::string name, why;
};

/// How the folder's own benchmark (the course's `-b`: benchmark.cu, or an
/// older year's benchmark.cpp) times the student's calls: the course's
/// binary of this folder measures T that way.
struct BenchmarkTiming {
    /// Each call is followed by cudaDeviceSynchronize() before the clock is
    /// read (benchmark.cu from 2023 on, and the newest course's). False for
    /// the 2019-2022 benchmark.cpp, which reads the clock right after each
    /// call returns: T is then the time to launch the work, unless the
    /// student's calls wait for the GPU themselves.
    bool syncs = true;
    std::string file;  ///< the benchmark read ("" = none in the folder: the newest course's)
};

/// True when `source` (a benchmark's text) calls cudaDeviceSynchronize or
/// cudaThreadSynchronize outside comments. Pure.
bool benchmark_synchronizes(const std::string& source);

/// One sentence on how `render grade` times the student's calls after `t`,
/// e.g. "your benchmark.cpp reads the clock as each call returns (no
/// cudaDeviceSynchronize(), as the course's benchmark of 2019-2022): ...".
std::string benchmark_timing_text(const BenchmarkTiming& t);

/// The folder, as read_course_folder found it. Names are relative to `dir`.
struct CourseFolder {
    std::string dir;             ///< absolute, normalized
    std::string makefile;        ///< "Makefile" (or makefile, GNUmakefile); "" when none
    MakefileReading reading;     ///< what the Makefile builds (empty without one)
    bool makefile_used = false;  ///< the Makefile decided the sources (false: "today's rule", see notes)
    LayoutGuess layout;
    std::vector<std::string> compiled;   ///< the student's sources compiled as theirs (.cu, .cpp)
    std::vector<std::string> headers;    ///< the student's headers and device helpers, used as written
    std::vector<Replaced> replaced;      ///< host programs (and, without a Makefile, framework copies) not taken
    std::vector<std::string> not_built;  ///< sources in the folder that its Makefile does not build
    std::vector<std::string> from_project;  ///< framework headers the folder lacks: the project's are used
    std::vector<std::pair<std::string, std::string>> include_aliases;  ///< (spelling in an #include, file on disk)
    std::vector<std::string> nvcc_flags;  ///< the Makefile's .cu compile flags that the harness passes on
    std::vector<std::string> notes;       ///< what the reading could not follow or dropped, in words
    std::vector<FolderText> texts;        ///< compiled + headers, their bytes as read
    std::string snow_par;                 ///< DIR/snow.par when readable, else ""
    std::vector<std::string> reference_binaries;  ///< DIR/render_ref, DIR/render_ref_x86 when executable
    BenchmarkTiming benchmark;  ///< how the folder's own benchmark times a call

    /// The student's files used (compiled, then headers), sorted.
    std::vector<std::string> used() const;
};

/// Reads `dir` (see file comment). Throws std::invalid_argument, as
/// check_student_folder, when it is not a course render/ folder.
CourseFolder read_course_folder(const std::string& dir);

/// Checks that `dir` is a course render/ folder: a folder holding
/// cudaRenderer.cu and cudaRenderer.h. Throws std::invalid_argument saying
/// "--student 'DIR' is not a folder: ..." or "--student 'DIR' has no
/// cudaRenderer.cu: ..." (DIR as given) otherwise.
void check_student_folder(const std::string& dir);

/// True for the names of files whose change changes the build: sources,
/// headers and device helpers (by extension) and the Makefile.
bool is_build_input(const std::string& name);

/// True for header and device-helper names (.h .hpp .hh .cuh .cu_inl .inl .inc).
bool is_header_name(const std::string& name);

/// The course's host programs the harness replaces, with why (main.cpp:
/// "the course's main loop: the harness drives your CudaRenderer itself", ...),
/// and platformgl.h (the window's OpenGL header). nullptr for other names.
const char* replaced_program_reason(const std::string& name);

/// The course framework's file names (COURSE_INTERFACE.md) that this project
/// has its own version of.
const std::vector<std::string>& framework_file_names();

/// The flags of the Makefile's .cu compile command (MakefileReading::
/// cuda_command) that the harness passes to nvcc: defines, optimization and
/// math flags, ptxas options, register limits, include folders (made
/// absolute against `dir`), device debug. Dropped, each with a line in
/// `notes`: the compiler, the source and object, -c, target architectures
/// (the harness builds for this machine's GPU), -ccbin, -std (the harness
/// uses C++17, which CUDA 12/13's thrust needs), host compiler options and
/// anything else it does not know. Pure.
std::vector<std::string> makefile_nvcc_flags(const std::vector<std::string>& cuda_command, const std::string& dir,
                                             std::vector<std::string>& notes);

}  // namespace cr::student
