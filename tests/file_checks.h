// Files for the tests: a temporary folder (TempDir), a whole file's bytes
// (slurp), a folder's names (entries), small checks on what is on disk for
// the output tests (links, devices), and character devices made with mknod
// (MAKE_CHAR_DEVICE_OR_SKIP(): needs root, the test is skipped elsewhere).
#pragma once

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace cr::testing_files {

/// The whole contents of file `path`, byte for byte ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// The names in folder `dir` (without . and ..); empty when it cannot be read.
inline std::set<std::string> entries(const std::string& dir) {
    std::set<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != "..") out.insert(n);
        }
        closedir(d);
    }
    return out;
}

/// A fresh empty folder /tmp/cr_test_<tag>_XXXXXX, removed with everything in
/// it when this object goes; path() is "" when it could not be made.
class TempDir {
public:
    explicit TempDir(const std::string& tag) {
        std::string tmpl = "/tmp/cr_test_" + tag + "_XXXXXX";
        if (const char* d = mkdtemp(tmpl.data())) path_ = d;
    }
    ~TempDir() {
        if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    /// The same folder as a std::filesystem::path, for building names with `/`.
    std::filesystem::path dir() const { return path_; }
    /// The names in the folder (without . and ..).
    std::set<std::string> entries() const { return testing_files::entries(path_); }

private:
    std::string path_;
};

/// True when `link` is a symbolic link whose text is exactly `to`.
inline bool is_symlink_to(const std::string& link, const std::string& to) {
    struct stat st;
    if (lstat(link.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
    char buf[4096];
    const ssize_t n = readlink(link.c_str(), buf, sizeof buf);
    return n >= 0 && std::string(buf, static_cast<size_t>(n)) == to;
}

/// True when `path` is (still) a character device with this major/minor.
inline bool is_char_device(const std::string& path, unsigned major_no, unsigned minor_no) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == major_no &&
           minor(st.st_rdev) == minor_no;
}

/// Makes character device c MAJOR MINOR at `path`; false when mknod is not
/// allowed (not root).
inline bool make_char_device(const std::string& path, unsigned major_no, unsigned minor_no) {
    return mknod(path.c_str(), S_IFCHR | 0666, makedev(major_no, minor_no)) == 0;
}

}  // namespace cr::testing_files

/// Makes character device c MAJOR MINOR at `path`, or skips the current test
/// (with the reason) when mknod is not allowed.
#define MAKE_CHAR_DEVICE_OR_SKIP(path, major_no, minor_no)                                  \
    do {                                                                                    \
        if (!::cr::testing_files::make_char_device((path), (major_no), (minor_no)))         \
            GTEST_SKIP() << "mknod of a character device needs root; CI runs this as root"; \
    } while (0)
