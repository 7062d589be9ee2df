// The T_ref cache of render grade (reference_cache.h).
#include "render/reference_cache.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <system_error>

#include "render/core/output_file.h"
#include "render/core/text.h"
#include "render/grading.h"  // kCourseTimingRuns

namespace fs = std::filesystem;

namespace cr {

namespace {

/// The cache file's JSON object (empty for a missing or unreadable file).
nlohmann::json read_cache(const std::string& path) {
    const nlohmann::json j = nlohmann::json::parse(read_file_bytes(path), nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
}

}  // namespace

std::string reference_cache_path() {
    if (const char* c = std::getenv("CR_REFERENCE_CACHE"); c && *c) return c;
    fs::path base;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) base = x;
    else if (const char* h = std::getenv("HOME"); h && *h) base = fs::path(h) / ".cache";
    else base = fs::temp_directory_path();
    return (base / "circle-renderer" / "reference_times.json").string();
}

std::string reference_cache_key(const std::string& exe, const std::string& gpu, const std::string& snow_par) {
    std::error_code ec;
    const fs::path p = fs::absolute(exe, ec);
    const auto size = fs::file_size(p, ec);
    if (ec) throw std::runtime_error("the reference cache: cannot read " + exe + ": " + ec.message());
    const auto mtime = fs::last_write_time(p, ec).time_since_epoch().count();
    const size_t par = snow_par.empty() ? 0 : std::hash<std::string>{}(read_file_bytes(snow_par));
    return p.lexically_normal().string() + "|" + std::to_string(size) + "|" + std::to_string(mtime) + "|" + gpu +
           "|snow.par " + std::to_string(par);
}

std::optional<CachedReferenceTimes> find_cached_reference_times(const std::string& path, const std::string& key,
                                                                int64_t now, double max_hours) {
    const nlohmann::json j = read_cache(path);
    if (!j.contains(key) || !j[key].is_object()) return std::nullopt;
    const nlohmann::json& e = j[key];
    CachedReferenceTimes t;
    t.measured_at = e.value("measured_at", int64_t{0});
    if (now < t.measured_at || static_cast<double>(now - t.measured_at) > max_hours * 3600.0) return std::nullopt;
    if (!e.contains("scenes") || !e["scenes"].is_object()) return std::nullopt;
    const nlohmann::json runs = e.value("runs", nlohmann::json::object());
    for (const auto& [scene, ms] : e["scenes"].items()) {
        if (!ms.is_number() || ms.get<double>() <= 0) continue;
        t.scenes[scene] = ms.get<double>();
        const auto r = runs.find(scene);
        t.runs[scene] = r != runs.end() && r->is_number_integer() && r->get<int>() > 0 ? r->get<int>() : kCourseTimingRuns;
    }
    if (t.scenes.empty()) return std::nullopt;
    return t;
}

bool store_reference_times(const std::string& path, const std::string& key, const CachedReferenceTimes& times) {
    nlohmann::json j = read_cache(path);
    j[key] = {{"measured_at", times.measured_at}, {"scenes", times.scenes}, {"runs", times.runs}};
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    try {
        write_text_file(path, j.dump(2) + "\n");  // whole or not at all, for a grade running beside this one
    } catch (const FileError&) {
        return false;
    }
    return true;
}

}  // namespace cr
