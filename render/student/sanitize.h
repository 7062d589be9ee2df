// Running a student's renderer under NVIDIA's compute-sanitizer (`render
// --student DIR --sanitize [memcheck|racecheck|synccheck|initcheck]`, and the
// GUI workbench's Sanitize button), and reading its report: each distinct
// error once, with the kernel, the first thread and block, the student's own
// file and line (the library is built with -lineinfo), the access, and how
// often it happened.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace cr::student {

/// No compute-sanitizer on this machine (exit code 3).
struct SanitizerMissing : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// One distinct error of the report.
struct SanitizerFinding {
    std::string what;    ///< e.g. "Invalid __global__ write of size 4 bytes", "Race reported between Write access and Read access"
    std::string kernel;  ///< e.g. "renderPerPixel" ("" for an API error)
    std::string where;   ///< FILE:LINE of the access ("" when the report has none)
    std::string other;   ///< racecheck: FILE:LINE of the other access
    std::string thread, block;  ///< of the first occurrence, e.g. "(16,0,0)"
    std::string detail;  ///< e.g. "Address 0x7f3a2c000400 is out of bounds" (first occurrence)
    long long count = 0;  ///< occurrences (racecheck: hazards)
};

/// The report as read.
struct SanitizerReport {
    std::vector<SanitizerFinding> findings;  ///< distinct, in the order first reported
    long long total = 0;                     ///< every occurrence
    std::string summary;                     ///< the tool's own summary line ("ERROR SUMMARY: 3 errors"), "" if none
};

/// The tools --sanitize takes, the default first: memcheck, racecheck,
/// synccheck, initcheck (the GUI's choice lists them in this order).
const std::vector<std::string>& sanitizer_tools();

/// "memcheck" when `name` is empty; the name when it is one of
/// sanitizer_tools(); else throws std::invalid_argument.
std::string sanitizer_tool(const std::string& name);

/// compute-sanitizer: $CR_COMPUTE_SANITIZER (exactly), else PATH, $CUDA_HOME,
/// /usr/local/cuda. "" when none.
std::string find_compute_sanitizer();

/// find_compute_sanitizer(), or throws SanitizerMissing saying where it was
/// looked for and that --sanitize needs it.
std::string require_compute_sanitizer();

/// The command prefix that runs a program under `tool`, its report to `log_path`.
std::vector<std::string> sanitizer_command(const std::string& exe, const std::string& tool, const std::string& log_path);

/// Reads compute-sanitizer's report (its "=========" lines; both the "at
/// KERNEL+0xOFF in FILE:LINE" and the older "at 0xOFF in FILE:LINE:KERNEL"
/// forms). Pure.
SanitizerReport parse_sanitizer_log(const std::string& log);

/// The report as the student reads it: one block a distinct error, then a
/// one-line summary naming the tool.
std::string describe_sanitizer_report(const SanitizerReport& r, const std::string& tool);

}  // namespace cr::student
