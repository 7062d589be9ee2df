#include "render/core/output_file.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace cr {

namespace {

std::string temp_name_for(const std::string& path) {
    return path + ".tmp" + std::to_string(static_cast<long>(getpid()));
}

void commit_temp(const std::string& tmp, const std::string& path) {
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw FileError("cannot write '" + path + "': " + why);
    }
}

}  // namespace

void write_output_file(const std::string& path, const std::function<bool(std::FILE*)>& write) {
    const std::string tmp = temp_name_for(path);
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw FileError("cannot write '" + path + "': " + std::strerror(errno));
    bool ok = write(f);
    ok = ok && std::fflush(f) == 0 && !std::ferror(f);
    const int err = errno;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) {
        std::remove(tmp.c_str());
        throw FileError("cannot write '" + path + "': " +
                           (err ? std::strerror(err) : "write failed (disk full?)"));
    }
    commit_temp(tmp, path);
}

void write_text_file(const std::string& path, const std::string& text) {
    write_output_file(path, [&](std::FILE* f) { return std::fwrite(text.data(), 1, text.size(), f) == text.size(); });
}

}  // namespace cr
