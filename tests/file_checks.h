// Small checks on what is on disk, for the output tests (links, devices).
#pragma once

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <string>

namespace cr::testing_files {

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

}  // namespace cr::testing_files
