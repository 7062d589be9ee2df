// `render profile`: profiler evidence for every kernel launch of a frame,
// from Nsight Compute (ncu) with a curated metric set, as one table row per
// launch named by stage, plus plain-language findings computed from the
// numbers, and a before -> after comparison of two runs.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace cr {

/// One kernel launch's numbers. Percentages are of the device's peak;
/// negative values mean "not measured" (the metric was missing).
struct KernelProfile {
    std::string kernel;  ///< the kernel's function name as ncu reports it
    std::string stage;   ///< our stage (bin.count, shade, ...), or the student's kernel name
    double duration_us = -1;
    double sm_pct = -1, dram_pct = -1;  ///< SM and DRAM throughput
    double occupancy_pct = -1;          ///< achieved occupancy (active warps / maximum)
    double theoretical_pct = -1;        ///< theoretical occupancy
    std::string occupancy_limit;        ///< what limits theoretical occupancy: registers, shared memory, block size, warps
    double ld_sectors_per_request = -1, st_sectors_per_request = -1;  ///< global memory
    double ld_bytes_used_pct = -1;      ///< of each fetched 32-byte sector, the bytes a load used
    double shared_conflicts_per_request = -1;  ///< extra shared-memory wavefronts per load/store instruction
    double threads_per_instruction = -1;       ///< active threads per executed warp instruction (32 = no divergence)
    int registers = -1;                 ///< per thread
    long long shared_bytes = -1;        ///< per block (static + dynamic)
    int block_size = -1;
    long long grid_size = -1;
};

/// A profiled frame.
struct ProfileTable {
    std::string device;  ///< ncu's device name, when reported
    std::vector<KernelProfile> rows;  ///< in launch order
};

/// Nsight Compute cannot be used here: not installed, counters not
/// permitted, or it failed (exit code 3). what() says how to fix it.
struct ProfilerUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The ncu metric names the table is made of (--metrics).
const std::vector<std::string>& profile_metrics();

/// Parses `ncu --csv --page raw` output (other lines, such as the program's
/// own output and ==PROF== notes, are skipped). Throws std::runtime_error
/// when it holds no profiled kernel.
ProfileTable parse_ncu_csv(const std::string& text);

/// Names ncu's kernel names by stage: this project's kernels by the stage
/// they belong to (clear, advance, bin.pack, ..., shade, present; CUB's sort
/// after the tile-load kernel is bin.order), any other kernel by itself.
void name_stages(ProfileTable& table);

/// Plain-language findings: one line per notable number, and which stage
/// dominates the frame.
std::vector<std::string> profile_findings(const ProfileTable& table);

/// The table as text (one row per launch).
std::string format_profile(const ProfileTable& table);

/// The same table with "before -> after (change %)" for the duration and the
/// main metrics; rows are matched by stage, kernel and occurrence.
std::string format_profile_compare(const ProfileTable& before, const ProfileTable& after);

/// JSON text of a table, and back (for --json and --compare). from_json
/// throws std::invalid_argument when the text is not a profile.
std::string profile_to_json(const ProfileTable& table, const std::string& what);
ProfileTable profile_from_json(const std::string& text);

/// ncu on this machine: $CR_NCU, PATH, the CUDA toolkit's bin/, or the
/// newest /opt/nvidia/nsight-compute/*/ncu ("" when none).
std::string find_ncu();

/// find_ncu(), or throws ProfilerUnavailable saying where ncu was looked for
/// and how to get it.
std::string require_ncu();

/// Runs `program_argv` under ncu (profiling from cudaProfilerStart to
/// cudaProfilerStop, child processes included, clocks left as they are),
/// with a time limit, and parses the result. Throws ProfilerUnavailable for a
/// missing ncu, counters that are not permitted (ERR_NVGPUCTRPERM, with how
/// to allow them), a run past the time limit, or an ncu failure.
ProfileTable run_profiler(const std::vector<std::string>& program_argv, double timeout_s);

}  // namespace cr
