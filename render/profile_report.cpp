// `render profile`'s findings, tables, comparison and JSON (render/profile.h).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "render/profile.h"

namespace cr {

namespace {

std::string fmt(const char* format, double v) {
    if (v < 0) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string short_name(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 1) + "~"; }

double frame_us(const ProfileTable& t) {
    double total = 0;
    for (const auto& k : t.rows) total += std::max(0.0, k.duration_us);
    return total;
}

/// Memory access findings of one launch (coalescing, bank conflicts).
void memory_findings(const KernelProfile& k, std::vector<std::string>& out) {
    const std::string who = k.stage + (k.stage == k.kernel ? "" : " (" + k.kernel + ")");
    if (k.ld_bytes_used_pct >= 0 && k.ld_bytes_used_pct < 60 && k.ld_sectors_per_request > 4.5)
        out.push_back(who + ": global loads use " + fmt("%.0f", k.ld_bytes_used_pct) +
                      "% of each 32-byte sector they fetch (" + fmt("%.1f", k.ld_sectors_per_request) +
                      " sectors per request; 4 is ideal for 32 consecutive floats) - the warp's 32 addresses span "
                      "many sectors: look at how threads index the arrays (consecutive threads, consecutive addresses)");
    if (k.st_sectors_per_request > 16.5)
        out.push_back(who + ": " + fmt("%.1f", k.st_sectors_per_request) +
                      " sectors per global store request (4 for 32 consecutive floats, 16 for float4s): the stores of "
                      "a warp are scattered");
    if (k.shared_conflicts_per_request >= 1.0)  // at least one extra pass per request on average
        out.push_back(who + ": bank conflicts " + fmt("%.1f", k.shared_conflicts_per_request) +
                      " per shared load/store - threads of a warp touch the same bank in different words (a 2-D "
                      "shared array whose row stride is a multiple of 32 words: pad one column; a record wider than "
                      "4 bytes stored field by field: split it into arrays)");
}

/// Execution findings of one launch (throughput, divergence, occupancy).
void execution_findings(const KernelProfile& k, std::vector<std::string>& out) {
    const std::string who = k.stage + (k.stage == k.kernel ? "" : " (" + k.kernel + ")");
    if (k.sm_pct >= 60 && k.dram_pct >= 0 && k.dram_pct < 30)
        out.push_back(who + " is compute-bound: SM throughput " + fmt("%.0f", k.sm_pct) + "% of peak, DRAM " +
                      fmt("%.1f", k.dram_pct) + "% - fewer instructions per pixel, not better memory access, "
                      "will make it faster");
    else if (k.dram_pct >= 60)
        out.push_back(who + " is memory-bound: DRAM throughput " + fmt("%.0f", k.dram_pct) +
                      "% of peak - move fewer bytes (wider or fewer loads, data reused from shared memory)");
    else if (k.sm_pct >= 0 && k.sm_pct < 40 && k.dram_pct >= 0 && k.dram_pct < 40)
        out.push_back(who + " reaches neither the SM (" + fmt("%.0f", k.sm_pct) + "%) nor the DRAM (" +
                      fmt("%.0f", k.dram_pct) + "%) peak: latency-bound or too little work in flight (" +
                      std::to_string(k.grid_size) + " blocks of " + std::to_string(k.block_size) + " threads)");
    if (k.threads_per_instruction >= 0 && k.threads_per_instruction < 24)
        out.push_back(who + ": " + fmt("%.1f", k.threads_per_instruction) +
                      " of 32 lanes active per instruction on average - branches split the warps (divergence)");
    if (k.theoretical_pct >= 0 && k.theoretical_pct < 50 && !k.occupancy_limit.empty())
        out.push_back(who + ": theoretical occupancy " + fmt("%.0f", k.theoretical_pct) + "%, limited by " +
                      k.occupancy_limit + " (" + std::to_string(k.registers) + " registers a thread, " +
                      std::to_string(k.shared_bytes) + " bytes of shared memory a block); occupancy is a "
                      "diagnostic: raise it only if the kernel waits on memory");
    else if (k.occupancy_pct >= 0 && k.theoretical_pct > 0 && k.occupancy_pct < 0.5 * k.theoretical_pct)
        out.push_back(who + ": achieved occupancy " + fmt("%.0f", k.occupancy_pct) + "% of a possible " +
                      fmt("%.0f", k.theoretical_pct) + "% - blocks finish unevenly or the grid is small");
}

}  // namespace

std::vector<std::string> profile_findings(const ProfileTable& t) {
    std::vector<std::string> out;
    const double total = frame_us(t);
    std::map<std::string, double> per_stage;
    std::map<std::string, const KernelProfile*> last;  // per stage and kernel: the last frame's launch
    for (const auto& k : t.rows) {
        per_stage[k.stage] += std::max(0.0, k.duration_us);
        last[k.stage + "|" + k.kernel] = &k;
    }
    for (const auto& k : t.rows) {
        if (last[k.stage + "|" + k.kernel] != &k) continue;
        if (total > 0 && k.duration_us < 0.05 * total / std::max<size_t>(1, t.rows.size() / last.size())) continue;
        memory_findings(k, out);
        execution_findings(k, out);
    }
    const auto top = std::max_element(per_stage.begin(), per_stage.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    if (top != per_stage.end() && total > 0) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "%s dominates the frame: %.0f%% of the profiled GPU time (%.1f of %.1f us)",
                      top->first.c_str(), 100 * top->second / total, top->second, total);
        out.push_back(buf);
    }
    return out;
}

std::string format_profile(const ProfileTable& t) {
    char line[400];
    std::snprintf(line, sizeof line, "%-12s %-24s %9s %5s %6s %13s %6s %6s %7s %6s %5s %7s %6s %8s\n", "stage",
                  "kernel", "time us", "SM%", "DRAM%", "occ% (theo)", "ld s/r", "st s/r", "bank/r", "thr/i",
                  "regs", "smem B", "block", "grid");
    std::string out = line;
    for (const auto& k : t.rows) {
        const std::string occ = fmt("%.0f", k.occupancy_pct) + " (" + fmt("%.0f", k.theoretical_pct) + ")";
        std::snprintf(line, sizeof line, "%-12s %-24s %9s %5s %6s %13s %6s %6s %7s %6s %5d %7lld %6d %8lld\n",
                      short_name(k.stage, 12).c_str(), short_name(k.kernel, 24).c_str(),
                      fmt("%.2f", k.duration_us).c_str(), fmt("%.1f", k.sm_pct).c_str(), fmt("%.1f", k.dram_pct).c_str(),
                      occ.c_str(), fmt("%.1f", k.ld_sectors_per_request).c_str(),
                      fmt("%.1f", k.st_sectors_per_request).c_str(), fmt("%.2f", k.shared_conflicts_per_request).c_str(),
                      fmt("%.1f", k.threads_per_instruction).c_str(), k.registers, k.shared_bytes, k.block_size,
                      k.grid_size);
        out += line;
    }
    return out;
}

std::string format_profile_compare(const ProfileTable& before, const ProfileTable& after) {
    // Rows match by stage, kernel and occurrence; a stage whose kernel was
    // replaced (a different fill kernel, say) matches by stage and occurrence.
    auto key = [](const ProfileTable& t, size_t i, bool with_kernel) {
        int nth = 0;
        for (size_t j = 0; j < i; ++j)
            nth += t.rows[j].stage == t.rows[i].stage && (!with_kernel || t.rows[j].kernel == t.rows[i].kernel);
        return t.rows[i].stage + "|" + (with_kernel ? t.rows[i].kernel : "") + "|" + std::to_string(nth);
    };
    std::map<std::string, const KernelProfile*> old;
    for (size_t i = 0; i < before.rows.size(); ++i) {
        old[key(before, i, true)] = &before.rows[i];
        old.emplace(key(before, i, false), &before.rows[i]);
    }
    auto change = [](double a, double b, const char* f) {
        if (a < 0 || b < 0) return fmt(f, a) + " -> " + fmt(f, b);
        char pct_buf[32] = "";
        if (a > 0) std::snprintf(pct_buf, sizeof pct_buf, "%+.0f%%", 100 * (b - a) / a);
        const std::string pct = pct_buf;
        return fmt(f, a) + " -> " + fmt(f, b) + (pct.empty() ? "" : " (" + pct + ")");
    };
    std::string out = "stage        kernel                   | time us                  | SM%            | DRAM%          | ld sectors/req | bank/req     | threads/inst\n";
    char line[600];
    for (size_t i = 0; i < after.rows.size(); ++i) {
        const KernelProfile& b = after.rows[i];
        auto it = old.find(key(after, i, true));
        if (it == old.end()) it = old.find(key(after, i, false));
        KernelProfile none;
        const KernelProfile& a = it == old.end() ? none : *it->second;
        std::snprintf(line, sizeof line, "%-12s %-24s | %-24s | %-14s | %-14s | %-14s | %-12s | %s\n",
                      short_name(b.stage, 12).c_str(), short_name(b.kernel, 24).c_str(),
                      change(a.duration_us, b.duration_us, "%.2f").c_str(), change(a.sm_pct, b.sm_pct, "%.0f").c_str(),
                      change(a.dram_pct, b.dram_pct, "%.1f").c_str(),
                      change(a.ld_sectors_per_request, b.ld_sectors_per_request, "%.1f").c_str(),
                      change(a.shared_conflicts_per_request, b.shared_conflicts_per_request, "%.2f").c_str(),
                      change(a.threads_per_instruction, b.threads_per_instruction, "%.1f").c_str());
        out += line;
    }
    return out;
}

std::string profile_to_json(const ProfileTable& t, const std::string& what) {
    nlohmann::json j = {{"profile", what}, {"device", t.device}, {"rows", nlohmann::json::array()}};
    for (const auto& k : t.rows)
        j["rows"].push_back({{"stage", k.stage}, {"kernel", k.kernel}, {"duration_us", k.duration_us},
                             {"sm_pct", k.sm_pct}, {"dram_pct", k.dram_pct}, {"occupancy_pct", k.occupancy_pct},
                             {"theoretical_occupancy_pct", k.theoretical_pct}, {"occupancy_limit", k.occupancy_limit},
                             {"ld_sectors_per_request", k.ld_sectors_per_request},
                             {"st_sectors_per_request", k.st_sectors_per_request},
                             {"ld_bytes_used_pct", k.ld_bytes_used_pct},
                             {"shared_conflicts_per_request", k.shared_conflicts_per_request},
                             {"threads_per_instruction", k.threads_per_instruction}, {"registers", k.registers},
                             {"shared_bytes", k.shared_bytes}, {"block_size", k.block_size}, {"grid_size", k.grid_size}});
    return j.dump(2) + "\n";
}

ProfileTable profile_from_json(const std::string& text) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object() || !j.contains("rows") || !j["rows"].is_array())
        throw std::invalid_argument("not a `render profile --json` result (no \"rows\" list)");
    ProfileTable t;
    t.device = j.value("device", "");
    for (const auto& r : j["rows"]) {
        KernelProfile k;
        k.stage = r.value("stage", "");
        k.kernel = r.value("kernel", "");
        k.duration_us = r.value("duration_us", -1.0);
        k.sm_pct = r.value("sm_pct", -1.0);
        k.dram_pct = r.value("dram_pct", -1.0);
        k.occupancy_pct = r.value("occupancy_pct", -1.0);
        k.theoretical_pct = r.value("theoretical_occupancy_pct", -1.0);
        k.occupancy_limit = r.value("occupancy_limit", "");
        k.ld_sectors_per_request = r.value("ld_sectors_per_request", -1.0);
        k.st_sectors_per_request = r.value("st_sectors_per_request", -1.0);
        k.ld_bytes_used_pct = r.value("ld_bytes_used_pct", -1.0);
        k.shared_conflicts_per_request = r.value("shared_conflicts_per_request", -1.0);
        k.threads_per_instruction = r.value("threads_per_instruction", -1.0);
        k.registers = r.value("registers", -1);
        k.shared_bytes = r.value("shared_bytes", -1ll);
        k.block_size = r.value("block_size", -1);
        k.grid_size = r.value("grid_size", -1ll);
        t.rows.push_back(k);
    }
    return t;
}

}  // namespace cr
