#include "render/options.h"

#include "render/core/numbers.h"
#include "render/core/output_file.h"

#include <cerrno>
#include <filesystem>
#include <system_error>
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

unsigned long long parse_student_memory(const std::string& text) {
    char* end = nullptr;
    const double gib = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(gib >= 0.001 && gib <= 4096))
        throw std::invalid_argument("bad --student-memory '" + text + "': use GiB from 0.001 to 4096");
    return static_cast<unsigned long long>(gib * 1073741824.0);
}

void check_not_folder(const std::string& path) {
    if (classify_output(path) == OutputTarget::Folder)
        throw std::invalid_argument("cannot write '" + path + "': it is a folder");
}

namespace {

/// Proves that a file can be created in folder `dir` (permissions, read-only
/// or special file systems) with a probe file that is removed at once.
/// Returns 0 or the errno of the failure.
int probe_folder(const std::string& dir) {
    const std::string probe = dir + "/.render_probe_" + std::to_string(static_cast<long>(getpid()));
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return errno;
    close(fd);
    unlink(probe.c_str());
    return 0;
}

/// check_writable for a file to be created in `dir` (the folder of `path`'s
/// final target).
void check_can_create_in(const std::string& path, const std::string& dir) {
    struct stat st;
    if (stat(dir.c_str(), &st) != 0)
        throw std::invalid_argument("cannot write '" + path + "': folder '" + dir + "' does not exist");
    if (!S_ISDIR(st.st_mode))
        throw std::invalid_argument("cannot write '" + path + "': '" + dir + "' is not a folder");
    if (const int err = probe_folder(dir))
        throw std::invalid_argument("cannot write '" + path + "': cannot create files in '" + dir +
                                    "': " + std::strerror(err));
}

}  // namespace

void check_writable(const std::string& path) {
    if (path.empty()) throw std::invalid_argument("empty output path");
    switch (classify_output(path)) {
    case OutputTarget::StandardOutput: return;
    case OutputTarget::Folder: throw std::invalid_argument("cannot write '" + path + "': it is a folder");
    case OutputTarget::Special:  // written in place: no probe file beside a device
        if (access(path.c_str(), W_OK) != 0)
            throw std::invalid_argument("cannot write '" + path + "': " + std::strerror(errno));
        return;
    case OutputTarget::Regular:
    case OutputTarget::Missing:  // a temporary file is created beside the link's final target
        check_can_create_in(path, folder_of(follow_links(path)));
        return;
    }
}

bool check_output_folder(const std::string& dir, bool create) {
    if (dir.empty()) throw std::invalid_argument("empty output folder");
    struct stat st;
    bool created = false;
    if (stat(dir.c_str(), &st) != 0 && create) {
        std::error_code ec;
        created = std::filesystem::create_directories(dir, ec);
        if (ec) throw std::invalid_argument("cannot create folder '" + dir + "': " + ec.message());
    }
    if (stat(dir.c_str(), &st) != 0)
        throw std::invalid_argument("cannot write to folder '" + dir + "': it does not exist");
    if (!S_ISDIR(st.st_mode)) throw std::invalid_argument("cannot write to folder '" + dir + "': it is not a folder");
    if (const int err = probe_folder(dir))
        throw std::invalid_argument("cannot write to folder '" + dir + "': " + std::strerror(err));
    return created;
}

}  // namespace cr
