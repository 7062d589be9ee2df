// A class of submissions for `render grade --class DIR`: one entry per
// student, a folder (the course's render/ folder itself or one that holds
// it) or an archive (the course's create_submission.sh makes asst3.tar.gz
// with saxpy/ scan/ render/; .tgz, .tar and .zip too). Archives are unpacked
// with libarchive into the results folder, never beside the submissions.
#pragma once

#include <string>
#include <vector>

namespace cr {

/// One student's submission.
struct ClassEntry {
    std::string id;       ///< the entry's name: the folder's, or the archive's without .tar.gz/.tgz/.tar/.zip
    std::string source;   ///< the folder or archive in the class folder (absolute)
    bool archive = false;
};

/// The entries of `class_dir`, sorted by id; hidden names are skipped, and
/// plain files that are no archive are listed in `skipped`. Throws
/// std::invalid_argument when `class_dir` is not a folder, and when two
/// entries have the same id (a folder `alice` and `alice.zip`).
std::vector<ClassEntry> list_class(const std::string& class_dir, std::vector<std::string>& skipped);

/// The id of an archive file name ("alice.tar.gz" -> "alice"), "" when the
/// name is no archive's.
std::string archive_id(const std::string& file_name);

/// Unpacks the archive `path` into `dest` (created; emptied first). Entries
/// with absolute paths, "..", or links that lead out are refused (libarchive's
/// secure extraction). Throws std::runtime_error naming the archive and the
/// problem.
void unpack_archive(const std::string& path, const std::string& dest);

/// The course folder inside `root`: `root` itself when it holds
/// cudaRenderer.cu, else its render/, else the first folder (in name order,
/// at most 3 levels down) that holds cudaRenderer.cu; "" when none.
std::string find_render_folder(const std::string& root);

}  // namespace cr
