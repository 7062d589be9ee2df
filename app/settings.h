// What the GUI remembers between runs: the student folders loaded last, in
// a small JSON file in the user's config folder
// ($XDG_CONFIG_HOME or ~/.config, then circle-renderer/settings.json).
#pragma once

#include <string>
#include <vector>

namespace cr::app {

/// The remembered settings.
struct Settings {
    static constexpr size_t kMaxRecent = 6;     ///< folders kept in recent_folders
    std::vector<std::string> recent_folders;     ///< newest first, no duplicates
};

/// Where the settings live: $XDG_CONFIG_HOME/circle-renderer/settings.json,
/// else $HOME/.config/circle-renderer/settings.json; "" when neither
/// variable is set (then nothing is remembered).
std::string settings_path();

/// Reads `path`. A missing file gives empty settings and no error; an
/// unreadable or malformed one gives empty settings and `error` says why
/// (the file is left as it is until the next save replaces it).
Settings load_settings(const std::string& path, std::string& error);

/// Writes `s` to `path` (creating its folder), atomically through
/// cr::write_text_file. Throws cr::FileError naming the path and the cause.
void save_settings(const std::string& path, const Settings& s);

/// Puts `folder` first in s.recent_folders (moving it if already there) and
/// drops the oldest beyond Settings::kMaxRecent.
void remember_folder(Settings& s, const std::string& folder);

}  // namespace cr::app
