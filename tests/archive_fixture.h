// Test helper: archives of files, written with libarchive, for the class
// grading tests (submissions as the course's asst3.tar.gz, or a zip).
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cr::testing_archives {

/// Writes `files` (name in the archive, text) as a gzipped tar, or a zip.
inline void write_archive(const std::filesystem::path& path, const std::vector<std::pair<std::string, std::string>>& files,
                          bool zip) {
    archive* a = archive_write_new();
    if (zip) archive_write_set_format_zip(a);
    else {
        archive_write_add_filter_gzip(a);
        archive_write_set_format_pax_restricted(a);
    }
    archive_write_open_filename(a, path.c_str());
    for (const auto& [name, text] : files) {
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_size(e, static_cast<la_int64_t>(text.size()));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_write_header(a, e);
        archive_write_data(a, text.data(), text.size());
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

/// The files of `dir` (top level) as (prefix + name, text).
inline std::vector<std::pair<std::string, std::string>> files_of(const std::filesystem::path& dir, const std::string& prefix) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        out.push_back({prefix + e.path().filename().string(), ss.str()});
    }
    return out;
}

}  // namespace cr::testing_archives
