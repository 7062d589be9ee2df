#include "render/core/output_file.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cr {

namespace {

constexpr int kMaxLinks = 40;  // as the kernel's own limit on a path's links

[[noreturn]] void fail(const std::string& path, int err) {
    throw FileError("cannot write " + describe_output(path) + ": " +
                    (err > 0 ? std::strerror(err) : "write failed"));
}

/// True when `st` is the file standard output is open on.
bool is_standard_output(const struct stat& st) {
    struct stat out;
    return fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}

/// Runs `write` on `f`, flushes, and returns 0 or the errno of the first
/// failure (-1 when the stream failed without one).
int write_and_flush(std::FILE* f, const std::function<bool(std::FILE*)>& write) {
    errno = 0;
    if (!write(f) || std::fflush(f) != 0 || std::ferror(f)) return errno ? errno : -1;
    return 0;
}

/// Runs `write` on open descriptor `fd` as a stream, flushes and closes it
/// (fd is closed in every case); returns 0 or the errno of the first failure.
int write_descriptor(int fd, const std::function<bool(std::FILE*)>& write) {
    std::FILE* f = fdopen(fd, "wb");
    if (!f) {
        const int err = errno;
        close(fd);
        return err;
    }
    int err = write_and_flush(f, write);
    if (std::fclose(f) != 0 && !err) err = errno ? errno : -1;
    return err;
}

void write_standard_output(const std::string& path, const std::function<bool(std::FILE*)>& write) {
    std::fflush(stdout);  // what was printed before comes first
    if (const int err = write_and_flush(stdout, write)) fail(path, err);
}

/// A device, FIFO or socket: opened for writing (no create, no truncate).
void write_in_place(const std::string& path, const std::function<bool(std::FILE*)>& write) {
    const int fd = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) fail(path, errno);
    if (const int err = write_descriptor(fd, write)) fail(path, err);
}

/// Creates a new, unused temporary file in the folder of `target`; returns
/// its descriptor and sets `tmp` to its name.
int create_temp_beside(const std::string& target, std::string& tmp) {
    const std::string dir = folder_of(target);
    const std::string base = target.substr(target.rfind('/') == std::string::npos ? 0 : target.rfind('/') + 1);
    for (int k = 0;; ++k) {
        tmp = (dir == "/" ? "" : dir) + "/." + base + ".tmp" + std::to_string(static_cast<long>(getpid())) +
              (k ? "_" + std::to_string(k) : "");
        const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST || k >= 100) return fd;
    }
}

/// A regular or missing file (through any link): temporary file, then rename.
void write_atomically(const std::string& path, const std::function<bool(std::FILE*)>& write) {
    const std::string target = follow_links(path);
    struct stat old;
    const bool existed = stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode);
    std::string tmp;
    const int fd = create_temp_beside(target, tmp);
    if (fd < 0) fail(path, errno);
    if (existed) (void)fchmod(fd, old.st_mode & 07777);  // keep the file's permissions
    int err = write_descriptor(fd, write);
    if (!err && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
    if (err) {
        unlink(tmp.c_str());
        fail(path, err);
    }
}

/// Ignores SIGPIPE while it lives, so that writing to a pipe or FIFO whose
/// reader has gone fails with EPIPE; restores the previous handler.
class IgnoreBrokenPipe {
public:
    IgnoreBrokenPipe() { struct sigaction ign {}; ign.sa_handler = SIG_IGN; sigaction(SIGPIPE, &ign, &old_); }
    ~IgnoreBrokenPipe() { sigaction(SIGPIPE, &old_, nullptr); }
    IgnoreBrokenPipe(const IgnoreBrokenPipe&) = delete;
    IgnoreBrokenPipe& operator=(const IgnoreBrokenPipe&) = delete;

private:
    struct sigaction old_ {};
};

}  // namespace

std::string describe_output(const std::string& path) {
    return path == kStandardOutputPath ? std::string("standard output") : "'" + path + "'";
}

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

OutputTarget classify_output(const std::string& path) {
    if (path == kStandardOutputPath) return OutputTarget::StandardOutput;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return OutputTarget::Missing;
    if (S_ISDIR(st.st_mode)) return OutputTarget::Folder;
    if (is_standard_output(st)) return OutputTarget::StandardOutput;
    return S_ISREG(st.st_mode) ? OutputTarget::Regular : OutputTarget::Special;
}

std::string follow_links(const std::string& path) {
    std::string cur = path;
    for (int hop = 0; hop <= kMaxLinks; ++hop) {
        struct stat st;
        if (lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        std::string to(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
        const ssize_t n = readlink(cur.c_str(), to.data(), to.size());
        if (n < 0) throw FileError("cannot write '" + path + "': cannot read link '" + cur + "': " + std::strerror(errno));
        to.resize(static_cast<size_t>(n));
        const std::string dir = folder_of(cur);
        cur = to.empty() || to[0] == '/' ? to : (dir == "/" ? "" : dir) + "/" + to;
    }
    throw FileError("cannot write '" + path + "': " + std::strerror(ELOOP));
}

void write_output_file(const std::string& path, const std::function<bool(std::FILE*)>& write) {
    if (path.empty()) throw FileError("cannot write '': empty output path");
    const IgnoreBrokenPipe guard;  // a closed pipe or FIFO is a write error (EPIPE), not a silent death
    switch (classify_output(path)) {
    case OutputTarget::StandardOutput: return write_standard_output(path, write);
    case OutputTarget::Special: return write_in_place(path, write);
    case OutputTarget::Folder: throw FileError("cannot write '" + path + "': it is a folder");
    case OutputTarget::Regular:
    case OutputTarget::Missing: return write_atomically(path, write);
    }
}

void write_text_file(const std::string& path, const std::string& text) {
    write_output_file(path, [&](std::FILE* f) { return std::fwrite(text.data(), 1, text.size(), f) == text.size(); });
}

}  // namespace cr
