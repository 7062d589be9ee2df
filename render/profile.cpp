#include "render/profile.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "render/student/process.h"

namespace cr {

namespace {

// ---- the metrics ------------------------------------------------------------
const char* const kDuration = "gpu__time_duration.sum";
const char* const kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
const char* const kTheoretical = "sm__maximum_warps_per_active_cycle_pct";
const char* const kLimitRegs = "launch__occupancy_limit_registers";
const char* const kLimitShared = "launch__occupancy_limit_shared_mem";
const char* const kLimitBlocks = "launch__occupancy_limit_blocks";
const char* const kLimitWarps = "launch__occupancy_limit_warps";
const char* const kLdSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
const char* const kLdRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
const char* const kStSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
const char* const kStRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
const char* const kLdBytesUsed = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
const char* const kSharedLdConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const char* const kSharedStConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
const char* const kSharedLdInst = "smsp__sass_inst_executed_op_shared_ld.sum";
const char* const kSharedStInst = "smsp__sass_inst_executed_op_shared_st.sum";
const char* const kThreadsPerInst = "smsp__thread_inst_executed_per_inst_executed.ratio";
const char* const kRegisters = "launch__registers_per_thread";
const char* const kSharedStatic = "launch__shared_mem_per_block_static";
const char* const kSharedDynamic = "launch__shared_mem_per_block_dynamic";
const char* const kBlockSize = "launch__block_size";
const char* const kGridSize = "launch__grid_size";

// ---- CSV ------------------------------------------------------------------------
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.push_back(cur);
            cur.clear();
        } else if (c != '\r') {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

/// A number as ncu prints it ("1,209,280", "83.66"); -1 for "n/a" or blank.
double number(const std::string& text) {
    std::string t;
    for (char c : text)
        if (c != ',' && c != ' ') t += c;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    return (t.empty() || end == t.c_str()) ? -1 : v;
}

/// Microseconds of a duration in `unit` (ncu: nsecond, usecond, msecond, second).
double to_us(double v, const std::string& unit) {
    if (v < 0) return v;
    if (unit.rfind("n", 0) == 0) return v / 1000.0;
    if (unit.rfind("m", 0) == 0) return v * 1000.0;
    if (unit == "second" || unit == "s") return v * 1e6;
    return v;
}

double ratio(double a, double b) { return (a < 0 || b <= 0) ? -1 : a / b; }

/// The limiter of theoretical occupancy: the limit giving the fewest blocks per SM.
std::string occupancy_limiter(double regs, double shared, double blocks, double warps) {
    const std::pair<const char*, double> limits[] = {
        {"registers", regs}, {"shared memory", shared}, {"block size", warps}, {"blocks per SM", blocks}};
    const char* name = "";
    double best = 1e30;
    for (const auto& [n, v] : limits)
        if (v >= 0 && v < best) {
            best = v;
            name = n;
        }
    return name;
}

KernelProfile row_from(const std::map<std::string, std::string>& v, const std::map<std::string, std::string>& unit) {
    auto get = [&](const char* m) { auto it = v.find(m); return it == v.end() ? -1.0 : number(it->second); };
    KernelProfile k;
    const auto name = v.find("Kernel Name");
    k.kernel = name == v.end() ? "?" : name->second;
    k.stage = k.kernel;
    const auto du = unit.find(kDuration);
    k.duration_us = to_us(get(kDuration), du == unit.end() ? "nsecond" : du->second);
    k.sm_pct = get(kSm);
    k.dram_pct = get(kDram);
    k.occupancy_pct = get(kOccupancy);
    k.theoretical_pct = get(kTheoretical);
    k.occupancy_limit = occupancy_limiter(get(kLimitRegs), get(kLimitShared), get(kLimitBlocks), get(kLimitWarps));
    k.ld_sectors_per_request = ratio(get(kLdSectors), get(kLdRequests));
    k.st_sectors_per_request = ratio(get(kStSectors), get(kStRequests));
    k.ld_bytes_used_pct = get(kLdBytesUsed);
    const double conflicts = std::max(0.0, get(kSharedLdConflicts)) + std::max(0.0, get(kSharedStConflicts));
    const double shared_inst = std::max(0.0, get(kSharedLdInst)) + std::max(0.0, get(kSharedStInst));
    k.shared_conflicts_per_request = shared_inst > 0 ? conflicts / shared_inst : -1;
    k.threads_per_instruction = get(kThreadsPerInst);
    k.registers = static_cast<int>(get(kRegisters));
    const double st = get(kSharedStatic), dy = get(kSharedDynamic);
    k.shared_bytes = st < 0 && dy < 0 ? -1 : static_cast<long long>(std::max(0.0, st) + std::max(0.0, dy));
    k.block_size = static_cast<int>(get(kBlockSize));
    k.grid_size = static_cast<long long>(get(kGridSize));
    return k;
}

}  // namespace

const std::vector<std::string>& profile_metrics() {
    static const std::vector<std::string> m = {
        kDuration,     kSm,          kDram,          kOccupancy,         kTheoretical,       kLimitRegs,
        kLimitShared,  kLimitBlocks, kLimitWarps,    kLdSectors,         kLdRequests,        kStSectors,
        kStRequests,   kLdBytesUsed, kSharedLdConflicts, kSharedStConflicts, kSharedLdInst,  kSharedStInst,
        kThreadsPerInst, kRegisters, kSharedStatic,  kSharedDynamic,     kBlockSize,         kGridSize};
    return m;
}

ProfileTable parse_ncu_csv(const std::string& text) {
    ProfileTable t;
    std::istringstream in(text);
    std::string line;
    std::vector<std::string> header, units;
    while (std::getline(in, line)) {
        if (line.rfind("\"ID\",", 0) == 0) {
            header = csv_fields(line);
            units.clear();
            continue;
        }
        if (header.empty() || line.empty() || line[0] != '"') continue;
        const std::vector<std::string> f = csv_fields(line);
        if (f.size() != header.size()) continue;
        if (units.empty() && f[0].empty()) {  // the units row follows the header
            units = f;
            continue;
        }
        std::map<std::string, std::string> values, unit;
        for (size_t i = 0; i < f.size(); ++i) {
            values[header[i]] = f[i];
            if (i < units.size()) unit[header[i]] = units[i];
        }
        if (values.count("device__attribute_display_name") && t.device.empty())
            t.device = values["device__attribute_display_name"];
        t.rows.push_back(row_from(values, unit));
    }
    if (t.rows.empty()) throw std::runtime_error("the profiler's output holds no kernel launch");
    return t;
}

void name_stages(ProfileTable& t) {
    static const std::pair<const char*, const char*> ours[] = {
        {"clear_kernel", "clear"},         {"advance_kernel", "advance"},   {"pack_geometry_kernel", "bin.pack"},
        {"bin_count_kernel", "bin.count"}, {"total_kernel", "bin.scan"},    {"bin_fill_kernel", "bin.fill"}, {"bin_fill_per_thread_kernel", "bin.fill"},
        {"bin_ranges_kernel", "bin.ranges"}, {"tile_loads_kernel", "bin.order"}, {"tile_order_kernel", "bin.order"}, {"recorded_order_kernel", "bin.order"}, {"shade_naive_kernel", "shade"},
        {"shade_tiles_kernel", "shade"},   {"shade_unordered_kernel", "shade"}, {"present_kernel", "present"},
        {"shade_ftb_kernel", "shade"},     {"bin_prepare_kernel", "bin.fill"}, {"bin_compact_kernel", "bin.compact"},
        {"bin_split_kernel", "bin.split"}, {"bin_place_kernel", "bin.place"}, {"count_total_kernel", "bin.scan"}, {"chunk_prefix_kernel", "bin.scan"}};
    std::string previous;
    for (KernelProfile& k : t.rows) {
        k.stage = k.kernel;
        for (const auto& [kernel, stage] : ours)
            if (k.kernel.find(kernel) != std::string::npos) k.stage = stage;
        if (k.kernel.find("DeviceScan") != std::string::npos) k.stage = "bin.scan";
        if (k.kernel.find("DeviceRadixSort") != std::string::npos || k.kernel.find("Onesweep") != std::string::npos)
            k.stage = previous == "bin.order" ? "bin.order" : "bin.sort";
        previous = k.stage;
    }
}

std::string find_ncu() {
    const char* exact = std::getenv("CR_NCU");
    std::error_code ec;
    std::vector<std::string> installs;
    for (const auto& d : std::filesystem::directory_iterator("/opt/nvidia/nsight-compute", ec))
        installs.push_back((d.path() / "ncu").string());
    std::sort(installs.rbegin(), installs.rend());  // the newest version first
    return student::find_cuda_tool("ncu", exact ? exact : "", installs);
}

std::string require_ncu() {
    const std::string ncu = find_ncu();
    if (ncu.empty())
        throw ProfilerUnavailable("Nsight Compute (ncu) was not found on PATH, in the CUDA toolkit or in "
                                  "/opt/nvidia/nsight-compute: install it (it comes with the CUDA toolkit) or set CR_NCU");
    return ncu;
}

namespace {

/// The last `n` lines of `text`, for error messages.
std::string tail_lines(const std::string& text, int n) {
    size_t pos = text.size();
    for (int i = 0; i <= n && pos != std::string::npos && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
    return pos == std::string::npos ? text : text.substr(pos + 1);
}

}  // namespace

ProfileTable run_profiler(const std::vector<std::string>& program_argv, double timeout_s) {
    const std::string ncu = require_ncu();
    std::string metrics;
    for (const auto& m : profile_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
    std::vector<std::string> argv = {ncu, "--csv", "--page", "raw", "--profile-from-start", "off",
                                     "--target-processes", "all", "--print-kernel-base", "function",
                                     "--clock-control", "none", "--metrics", metrics};
    argv.insert(argv.end(), program_argv.begin(), program_argv.end());
    const student::CapturedRun run = student::run_captured(argv, timeout_s);
    if (run.output.find("ERR_NVGPUCTRPERM") != std::string::npos)
        throw ProfilerUnavailable(
            "the GPU's performance counters may not be read by this user (ERR_NVGPUCTRPERM). Run as root (sudo), or "
            "allow every user: echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee "
            "/etc/modprobe.d/nvidia-profiling.conf, then reboot (see https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
    if (run.timed_out)
        throw ProfilerUnavailable("the profiled run took longer than " + std::to_string(static_cast<int>(timeout_s)) +
                                  " s and was stopped: profile a smaller --size or fewer --frames, or raise --timeout");
    try {
        ProfileTable t = parse_ncu_csv(run.output);
        name_stages(t);
        return t;
    } catch (const std::runtime_error&) {
        throw ProfilerUnavailable("ncu profiled no kernel (" + run.exit_text + "); its last lines:\n" +
                                  tail_lines(run.output, 8));
    }
}

}  // namespace cr
