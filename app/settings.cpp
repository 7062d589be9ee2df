#include "settings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "render/core/output_file.h"

namespace cr::app {

std::string settings_path() {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    if (xdg && *xdg) return std::string(xdg) + "/circle-renderer/settings.json";
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + "/.config/circle-renderer/settings.json";
    return "";
}

Settings load_settings(const std::string& path, std::string& error) {
    error.clear();
    Settings s;
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) return s;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) {
        error = "cannot read the settings file '" + path + "'";
        return s;
    }
    try {
        const nlohmann::json j = nlohmann::json::parse(text.str());
        if (j.contains("recent_folders"))
            for (const auto& f : j.at("recent_folders"))
                if (f.is_string() && s.recent_folders.size() < Settings::kMaxRecent)
                    s.recent_folders.push_back(f.get<std::string>());
    } catch (const nlohmann::json::exception& e) {
        error = "settings file '" + path + "' ignored: " + e.what();
        s.recent_folders.clear();
    }
    return s;
}

void save_settings(const std::string& path, const Settings& s) {
    if (path.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec) throw FileError("cannot create the folder of '" + path + "': " + ec.message());
    const nlohmann::json j = {{"recent_folders", s.recent_folders}};
    write_text_file(path, j.dump(2) + "\n");
}

void remember_folder(Settings& s, const std::string& folder) {
    auto& r = s.recent_folders;
    r.erase(std::remove(r.begin(), r.end(), folder), r.end());
    r.insert(r.begin(), folder);
    if (r.size() > Settings::kMaxRecent) r.resize(Settings::kMaxRecent);
}

}  // namespace cr::app
