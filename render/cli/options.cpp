#include "render/cli/options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cr {

namespace {
bool parse_dim(const std::string& s, int& out) {
    if (s.empty() || s.size() > 6) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    out = std::atoi(s.c_str());
    return true;
}
}  // namespace

void parse_size(const std::string& text, int& w, int& h) {
    const auto x = text.find_first_of("xX");
    bool ok = x == std::string::npos ? parse_dim(text, w) && parse_dim(text, h)
                                     : parse_dim(text.substr(0, x), w) && parse_dim(text.substr(x + 1), h);
    if (!ok || w < 1 || h < 1 || w > 16384 || h > 16384)
        throw std::invalid_argument("bad size '" + text + "': use N or WxH with each side in 1..16384");
}

uint32_t parse_seed(const std::string& text) {
    if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("bad seed '" + text + "': use an integer in 0..4294967295");
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (v > 4294967295ull) throw std::invalid_argument("bad seed '" + text + "': use an integer in 0..4294967295");
    return static_cast<uint32_t>(v);
}

int parse_whole_number(const std::string& text, const std::string& option, int lo, int hi,
                       const std::string& rule) {
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
                        text.size() <= std::to_string(hi).size();
    const long long v = digits ? std::stoll(text) : -1;
    if (v < lo || v > hi) throw std::invalid_argument("bad " + option + " '" + text + "': " + rule);
    return static_cast<int>(v);
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : text + ",") {
        if (c == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else if (c != ' ') {
            cur += c;
        }
    }
    return out;
}

void check_not_folder(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw std::invalid_argument("cannot write '" + path + "': it is a folder");
}

void check_writable(const std::string& path) {
    if (path.empty()) throw std::invalid_argument("empty output path");
    check_not_folder(path);
    struct stat st;
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (stat(dir.c_str(), &st) != 0)
        throw std::invalid_argument("cannot write '" + path + "': folder '" + dir + "' does not exist");
    if (!S_ISDIR(st.st_mode))
        throw std::invalid_argument("cannot write '" + path + "': '" + dir + "' is not a folder");
    // Prove a file can be created there (permissions, read-only or special
    // file systems) without touching `path` itself.
    const std::string probe = dir + "/.render_probe_" + std::to_string(static_cast<long>(getpid()));
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        throw std::invalid_argument("cannot write '" + path + "': cannot create files in '" + dir +
                                    "': " + std::strerror(errno));
    close(fd);
    unlink(probe.c_str());
}

std::string reference_name(const std::string& scene, int w, int h, uint32_t seed, int frame) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s_%dx%d_s%u_f%04d.png", scene.c_str(), w, h, seed, frame);
    return buf;
}

}  // namespace cr
