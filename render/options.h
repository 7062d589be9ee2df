// Option parsing shared by `render` and the GUI, and the exit codes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/frame_loop.h"
#include "render/reference_set.h"

namespace cr {

/// Exit codes (docs/ERRORS.md).
enum ExitCode : int {
    kExitOk = 0,
    kExitMismatch = 1,    ///< --check found a mismatch
    kExitUsage = 2,       ///< bad option, scene, size, file or output path
    kExitNoGpu = 3,       ///< a GPU renderer was asked for without a CUDA device
    kExitGpuMemory = 4,   ///< out of device memory
    kExitRuntime = 5,     ///< any other CUDA or runtime failure
};

/// Parses "N" or "WxH" into a size within 1..kMaxImageSide (16384). Throws
/// std::invalid_argument naming the bad value.
void parse_size(const std::string& text, int& width, int& height);

/// Parses an unsigned 32-bit seed. Throws std::invalid_argument.
uint32_t parse_seed(const std::string& text);

/// Parses a whole number for `option` (e.g. "--repeat"): digits only, no
/// more digits than `hi` has, value in lo..hi (0 <= lo <= hi). Throws
/// std::invalid_argument "bad OPTION 'TEXT': RULE".
int parse_whole_number(const std::string& text, const std::string& option, int lo, int hi,
                       const std::string& rule);

/// Parses --student-memory's GiB (a decimal number, 0.001..4096) into bytes.
/// Throws std::invalid_argument "bad --student-memory 'TEXT': use GiB from
/// 0.001 to 4096".
unsigned long long parse_student_memory(const std::string& text);

/// Throws std::invalid_argument "cannot write 'PATH': it is a folder" when
/// `path` names an existing folder (through any symbolic link).
void check_not_folder(const std::string& path);

/// Checks up front that write_output_file can write `path`, without touching
/// any existing file: "-" and the file standard output is open on pass; a
/// device, FIFO or socket must be writable (no probe file is made beside
/// it); for a regular or new file, also behind a symbolic link, the final
/// target's folder must exist and accept new files (a probe file there is
/// created and removed). Throws std::invalid_argument naming `path`.
void check_writable(const std::string& path);

/// Checks that files can be created in folder `dir`; with `create`, a
/// missing `dir` is created first (with its missing parents). Returns true
/// when it created `dir`. Throws std::invalid_argument naming `dir`.
bool check_output_folder(const std::string& dir, bool create);

}  // namespace cr
