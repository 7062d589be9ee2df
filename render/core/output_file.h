// Writing an output file without losing what the user had: the one writer
// behind every file the project writes (images, JSON, CSV, scene files).
#pragma once

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

namespace cr {

/// Error writing or reading a file; what() names the path and the cause.
struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Writes a file through `write`, which gets an open stream and returns
/// false on failure. Regular files are written to a temporary name beside
/// the target and renamed over it, so a failed write never leaves a
/// truncated file or clobbers an existing one. Throws FileError naming the
/// path on any failure.
void write_output_file(const std::string& path, const std::function<bool(std::FILE*)>& write);

/// Writes `text` to `path` with write_output_file's guarantees.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace cr
