// A class's entries (class_entries.h).
#include "render/class_entries.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>

#include "render/core/text.h"

namespace fs = std::filesystem;

namespace cr {

namespace {

/// True for an archive member's name that stays inside its folder: relative, without "..".
bool safe_member(const std::string& name) {
    if (name.empty() || name[0] == '/') return false;
    for (const auto& part : fs::path(name))
        if (part == "..") return false;
    return true;
}

/// Copies the data of the entry just read from `in` to `out`.
void copy_data(archive* in, archive* out, const std::string& path) {
    const void* buf;
    size_t size;
    la_int64_t offset;
    for (;;) {
        const int r = archive_read_data_block(in, &buf, &size, &offset);
        if (r == ARCHIVE_EOF) return;
        if (r < ARCHIVE_OK) throw std::runtime_error("cannot read " + path + ": " + archive_error_string(in));
        if (archive_write_data_block(out, buf, size, offset) < ARCHIVE_OK)
            throw std::runtime_error("cannot unpack " + path + ": " + archive_error_string(out));
    }
}

}  // namespace

std::string archive_id(const std::string& name) {
    for (const char* ext : {".tar.gz", ".tgz", ".tar", ".zip"})
        if (ends_with(name, ext) && name.size() > std::string(ext).size()) return name.substr(0, name.size() - std::string(ext).size());
    return "";
}

std::vector<ClassEntry> list_class(const std::string& class_dir, std::vector<std::string>& skipped) {
    std::error_code ec;
    if (!fs::is_directory(class_dir, ec))
        throw std::invalid_argument("--class '" + class_dir + "' is not a folder: give the folder with one entry per student");
    std::map<std::string, ClassEntry> by_id;
    for (const auto& e : fs::directory_iterator(class_dir)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        ClassEntry c;
        c.source = fs::absolute(e.path()).lexically_normal().string();
        if (e.is_directory()) {
            c.id = name;
        } else if (!(c.id = archive_id(name)).empty()) {
            c.archive = true;
        } else {
            skipped.push_back(name);
            continue;
        }
        if (by_id.count(c.id))
            throw std::invalid_argument("--class '" + class_dir + "' has two entries for student '" + c.id + "': " +
                                        fs::path(by_id[c.id].source).filename().string() + " and " + name);
        by_id[c.id] = c;
    }
    std::vector<ClassEntry> out;
    for (auto& [id, c] : by_id) out.push_back(c);
    std::sort(skipped.begin(), skipped.end());
    return out;
}

void unpack_archive(const std::string& path, const std::string& dest) {
    fs::remove_all(dest);
    fs::create_directories(dest);
    std::unique_ptr<archive, int (*)(archive*)> in(archive_read_new(), archive_read_free);
    std::unique_ptr<archive, int (*)(archive*)> out(archive_write_disk_new(), archive_write_free);
    archive_read_support_filter_all(in.get());
    archive_read_support_format_all(in.get());
    // Names are checked here (no absolute path, no ".."), then put under
    // `dest`; libarchive refuses ".." and writes through no symbolic link.
    archive_write_disk_set_options(out.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                                  ARCHIVE_EXTRACT_SECURE_SYMLINKS);
    if (archive_read_open_filename(in.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
        throw std::runtime_error("cannot open the archive " + path + ": " + archive_error_string(in.get()));
    archive_entry* entry;
    for (int r; (r = archive_read_next_header(in.get(), &entry)) != ARCHIVE_EOF;) {
        if (r < ARCHIVE_WARN) throw std::runtime_error("cannot read the archive " + path + ": " + archive_error_string(in.get()));
        const std::string name = archive_entry_pathname(entry);
        if (!safe_member(name)) throw std::runtime_error("the archive " + path + " holds '" + name + "', a path out of its folder");
        archive_entry_set_pathname(entry, (fs::path(dest) / name).c_str());
        if (const char* link = archive_entry_hardlink(entry)) {
            if (!safe_member(link)) throw std::runtime_error("the archive " + path + " links to '" + std::string(link) + "'");
            archive_entry_set_hardlink(entry, (fs::path(dest) / link).c_str());
        }
        if (archive_write_header(out.get(), entry) < ARCHIVE_OK)
            throw std::runtime_error("cannot unpack '" + name + "' of " + path + ": " + archive_error_string(out.get()));
        if (archive_entry_size(entry) > 0) copy_data(in.get(), out.get(), path);
        archive_write_finish_entry(out.get());
    }
}

std::string find_render_folder(const std::string& root) {
    std::error_code ec;
    const auto has = [&](const fs::path& d) { return fs::is_regular_file(d / "cudaRenderer.cu", ec); };
    if (has(root)) return fs::path(root).lexically_normal().string();
    if (has(fs::path(root) / "render")) return (fs::path(root) / "render").lexically_normal().string();
    std::vector<fs::path> found;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        if (it.depth() >= 3) it.disable_recursion_pending();
        std::error_code e2;
        if (it->is_directory(e2) && has(it->path())) found.push_back(it->path());
    }
    std::sort(found.begin(), found.end());
    return found.empty() ? "" : found.front().lexically_normal().string();
}

}  // namespace cr
