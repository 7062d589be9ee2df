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

/// The path that means "standard output" where an option accepts it.
inline const std::string kStandardOutputPath = "-";

/// What an output path names now (symbolic links followed).
enum class OutputTarget {
    StandardOutput,  ///< "-", or the very file standard output is open on (/dev/stdout, /proc/self/fd/1)
    Special,         ///< an existing character or block device, FIFO or socket: written in place
    Regular,         ///< an existing regular file: replaced atomically (through any link)
    Missing,         ///< nothing there yet (or a dangling link): created atomically
    Folder,          ///< an existing folder: refused
};

/// Classifies `path` (see OutputTarget). Never creates or changes anything.
OutputTarget classify_output(const std::string& path);

/// The file a write to `path` lands in: `path` itself, or for a symbolic
/// link the end of its chain (relative links resolved against the link's
/// folder, up to 40 links; a dangling link gives the missing target).
/// Throws FileError for a loop or an unreadable link.
std::string follow_links(const std::string& path);

/// The folder part of `path` ("." for a bare name, "/" for "/x").
std::string folder_of(const std::string& path);

/// Writes an output through `write`, which gets an open stream and returns
/// false on failure (errno set). By target (classify_output):
/// - standard output: written to stdout and flushed; stdout stays open;
/// - a device, FIFO or socket: opened for writing and written in place,
///   never truncated, renamed over or replaced (so /dev/null stays a device);
/// - a regular or missing file, also behind a symbolic link: written to a
///   temporary file in the final target's folder and renamed over the
///   target, so the link stays a link and a failed write never leaves a
///   truncated file or clobbers the old one; an existing file keeps its mode.
/// Any failure (including ENOSPC and EPIPE) throws FileError
/// "cannot write 'PATH': CAUSE".
void write_output_file(const std::string& path, const std::function<bool(std::FILE*)>& write);

/// Writes `text` to `path` with write_output_file's guarantees.
void write_text_file(const std::string& path, const std::string& text);

/// How messages name an output: "standard output" for "-", else 'PATH'.
std::string describe_output(const std::string& path);

}  // namespace cr
