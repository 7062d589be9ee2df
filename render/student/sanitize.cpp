// compute-sanitizer for a student's renderer (sanitize.h).
#include "render/student/sanitize.h"

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "render/student/process.h"

namespace cr::student {

namespace {

const char* const kPrefix = "=========";

/// The text after the "=========" prefix, and whether it is indented (a
/// continuation of the block above).
bool sanitizer_line(const std::string& line, std::string& text, bool& indented) {
    if (line.compare(0, 9, kPrefix) != 0) return false;
    const std::string rest = line.substr(9);
    indented = rest.size() > 1 && rest[0] == ' ' && rest[1] == ' ';
    const size_t start = rest.find_first_not_of(' ');
    text = start == std::string::npos ? "" : rest.substr(start);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    return true;
}

/// The kernel's name from "renderPerPixel(const float *, int)+0x1d0" or "void k<int>(...)".
std::string kernel_name(std::string k) {
    const size_t paren = k.find('(');
    if (paren != std::string::npos) k = k.substr(0, paren);
    const size_t space = k.rfind(' ');
    return space == std::string::npos ? k : k.substr(space + 1);
}

/// "at KERNEL+0xOFF in FILE:LINE" or "at 0xOFF in FILE:LINE:KERNEL": kernel and FILE:LINE.
bool access_site(const std::string& text, std::string& kernel, std::string& where) {
    static const std::regex modern(R"(at (.+)\+0x[0-9a-fA-F]+ in (.+:\d+))");
    static const std::regex older(R"(at 0x[0-9a-fA-F]+ in (.+?:\d+):(.+))");
    std::smatch m;
    if (std::regex_search(text, m, modern)) {
        kernel = kernel_name(m[1].str());
        where = m[2].str();
        return true;
    }
    if (std::regex_search(text, m, older)) {
        where = m[1].str();
        kernel = kernel_name(m[2].str());
        return true;
    }
    return false;
}

/// One block of the report: a header and its indented lines.
struct Block {
    std::string header;
    std::vector<std::string> lines;
};

bool is_summary(const std::string& header) {
    return header.find("SUMMARY") != std::string::npos || header == "COMPUTE-SANITIZER" || header.empty() ||
           header.rfind("Target application", 0) == 0;
}

SanitizerFinding finding_of(const Block& b) {
    SanitizerFinding f;
    f.what = b.header;
    f.count = 1;
    static const std::regex race(R"(^Error: Race reported between (\w+) access at (.+)$)");
    static const std::regex hazards(R"(\[(\d+) hazards?\])");
    static const std::regex by(R"(by thread (\(\d+,\d+,\d+\)) in block (\(\d+,\d+,\d+\)))");
    static const std::regex site_in_header(R"(^(.*) at (.+\+0x.*)$)"), other_access(R"(^and (\w+) access)");
    std::smatch m;
    if (std::regex_match(b.header, m, race)) {
        access_site("at " + m[2].str(), f.kernel, f.where);
        f.what = "Race reported between " + m[1].str() + " access";
    } else if (std::regex_search(b.header, m, site_in_header)) {  // some tools put the site in the header
        access_site("at " + m[2].str(), f.kernel, f.where);
        f.what = m[1].str();
    }
    for (const auto& l : b.lines) {
        std::string k, w;
        if (l.rfind("and ", 0) == 0) {
            std::smatch a;
            if (std::regex_search(l, a, other_access)) f.what += " and " + a[1].str() + " access";
            if (access_site(l, k, w)) f.other = w;
            if (std::regex_search(l, a, hazards)) f.count = std::atoll(a[1].str().c_str());
        } else if (f.where.empty() && l.rfind("at ", 0) == 0 && access_site(l, k, w)) {
            f.kernel = k;
            f.where = w;
        } else if (std::regex_search(l, m, by)) {
            f.thread = m[1].str();
            f.block = m[2].str();
        } else if (f.detail.empty() && l.rfind("Address ", 0) == 0) {
            f.detail = l;
        }
    }
    return f;
}

std::vector<Block> blocks_of(const std::string& log, std::string& summary) {
    std::vector<Block> blocks;
    std::istringstream in(log);
    std::string line, text;
    bool indented = false;
    while (std::getline(in, line)) {
        if (!sanitizer_line(line, text, indented)) continue;
        if (!indented) {
            if (text.find("SUMMARY") != std::string::npos) summary = text;
            blocks.push_back(Block{text, {}});
        } else if (!blocks.empty()) {
            blocks.back().lines.push_back(text);
        }
    }
    return blocks;
}

}  // namespace

const std::vector<std::string>& sanitizer_tools() {
    static const std::vector<std::string> tools = {"memcheck", "racecheck", "synccheck", "initcheck"};
    return tools;
}

std::string sanitizer_tool(const std::string& name) {
    if (name.empty()) return sanitizer_tools().front();
    for (const auto& t : sanitizer_tools())
        if (name == t) return name;
    throw std::invalid_argument("bad --sanitize '" + name + "': use memcheck (the default), racecheck, synccheck or initcheck");
}

std::string find_compute_sanitizer() {
    const char* e = std::getenv("CR_COMPUTE_SANITIZER");
    return find_cuda_tool("compute-sanitizer", e ? e : "");
}

std::string require_compute_sanitizer() {
    const std::string exe = find_compute_sanitizer();
    if (exe.empty())
        throw SanitizerMissing("no compute-sanitizer found (PATH, $CUDA_HOME, /usr/local/cuda or $CR_COMPUTE_SANITIZER): "
                               "--sanitize needs the CUDA toolkit's compute-sanitizer");
    return exe;
}

std::vector<std::string> sanitizer_command(const std::string& exe, const std::string& tool, const std::string& log_path) {
    return {exe, "--tool", tool, "--log-file", log_path, "--print-limit", "10000"};
}

SanitizerReport parse_sanitizer_log(const std::string& log) {
    SanitizerReport r;
    for (const Block& b : blocks_of(log, r.summary)) {
        if (is_summary(b.header)) continue;
        const SanitizerFinding f = finding_of(b);
        r.total += f.count;
        const auto same = [&](const SanitizerFinding& g) {
            return g.what == f.what && g.kernel == f.kernel && g.where == f.where && g.other == f.other;
        };
        const auto it = std::find_if(r.findings.begin(), r.findings.end(), same);
        if (it == r.findings.end()) r.findings.push_back(f);
        else it->count += f.count;
    }
    return r;
}

std::string describe_sanitizer_report(const SanitizerReport& r, const std::string& tool) {
    std::string out;
    int n = 0, first_in_kernel = 0;  // the first error inside a kernel; CUDA calls after it only report its fault
    for (const auto& f : r.findings) {
        out += "  " + std::to_string(++n) + ". " + f.what;
        if (!f.kernel.empty()) out += " in kernel " + f.kernel;
        if (!f.where.empty()) out += " at " + f.where;
        if (!f.other.empty()) out += " (the other access at " + f.other + ")";
        if (!f.kernel.empty() && first_in_kernel == 0) first_in_kernel = n;
        else if (f.kernel.empty() && first_in_kernel > 0)
            out += " (left by the kernel's fault in " + std::to_string(first_in_kernel) + ".: fix that one)";
        out += "\n     ";
        if (!f.thread.empty()) out += "first by thread " + f.thread + " in block " + f.block + "; ";
        if (!f.detail.empty()) out += f.detail + "; ";
        out += std::to_string(f.count) + (f.count == 1 ? " time" : " times") + "\n";
    }
    const std::string head = "compute-sanitizer " + tool + ": ";
    if (r.findings.empty()) return head + "no errors in your renderer" + (r.summary.empty() ? "" : " (" + r.summary + ")") + "\n";
    return out + head + std::to_string(r.findings.size()) + " distinct error" + (r.findings.size() == 1 ? "" : "s") + ", " +
           std::to_string(r.total) + " in all" + (r.summary.empty() ? "" : " (the tool's " + r.summary + ")") + "\n";
}

}  // namespace cr::student
