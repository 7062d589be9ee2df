#include "render/options.h"

#include "render/core/numbers.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cr {

void parse_size(const std::string& text, int& w, int& h) {
    const auto x = text.find_first_of("xX");
    const std::string ws = x == std::string::npos ? text : text.substr(0, x);
    const std::string hs = x == std::string::npos ? text : text.substr(x + 1);
    long long a = 0, b = 0;
    if (!parse_integer(ws, 1, kMaxImageSide, a) || !parse_integer(hs, 1, kMaxImageSide, b))
        throw std::invalid_argument("bad size '" + text + "': use N or WxH with each side in 1.." +
                                    std::to_string(kMaxImageSide));
    w = static_cast<int>(a);
    h = static_cast<int>(b);
}

uint32_t parse_seed(const std::string& text) {
    long long v = 0;
    if (!parse_integer(text, 0, 4294967295ll, v))
        throw std::invalid_argument("bad seed '" + text + "': use an integer in 0..4294967295");
    return static_cast<uint32_t>(v);
}

int parse_whole_number(const std::string& text, const std::string& option, int lo, int hi,
                       const std::string& rule) {
    long long v = 0;
    if (!parse_integer(text, lo, hi, v)) throw std::invalid_argument("bad " + option + " '" + text + "': " + rule);
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

}  // namespace cr
