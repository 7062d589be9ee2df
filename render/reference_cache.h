// T_ref of the course's render_ref, kept between grades on one machine
// (render grade): timing the reference is half of a grade's wall time (24 of
// its 48 fresh processes), and a student grades again and again on the same
// GPU. An entry is keyed by what decides those times -- the reference binary
// (path, size, modification time), the GPU (its description) and the
// snow.par both sides read -- and is used for kReferenceCacheHours.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace cr {

/// Hours a cached T_ref is used for before it is measured again.
constexpr double kReferenceCacheHours = 12.0;

/// One cached measurement: T_ref per scene (ms per frame, the minimum of the
/// runs made), how many runs of the reference it is the minimum of (3, as
/// checker.py makes; fewer where the grade stopped early: a later grade
/// that needs the others makes them), and when its oldest run was made
/// (seconds since the epoch).
struct CachedReferenceTimes {
    std::map<std::string, double> scenes;
    std::map<std::string, int> runs;  ///< a scene missing here: kCourseTimingRuns (entries of earlier versions)
    int64_t measured_at = 0;
};

/// The cache file: $CR_REFERENCE_CACHE, else $XDG_CACHE_HOME or ~/.cache,
/// then circle-renderer/reference_times.json.
std::string reference_cache_path();

/// The key of a measurement: `exe`'s absolute path, size and modification
/// time, `gpu` and a hash of the snow.par at `snow_par` ("" = none). Throws
/// std::runtime_error when `exe` cannot be read.
std::string reference_cache_key(const std::string& exe, const std::string& gpu, const std::string& snow_par);

/// The entry of `key` in the cache file at `path`, when one exists with at
/// least one scene and was measured within `max_hours` of `now` (seconds
/// since the epoch); nullopt otherwise, also for a missing or unreadable
/// file (a cache is never an error). Scenes whose time is not a positive
/// number are left out.
std::optional<CachedReferenceTimes> find_cached_reference_times(const std::string& path, const std::string& key,
                                                                int64_t now, double max_hours = kReferenceCacheHours);

/// Stores `times` under `key` in the cache file at `path` (made with its
/// folder when missing; other keys kept). False when it cannot be written.
bool store_reference_times(const std::string& path, const std::string& key, const CachedReferenceTimes& times);

}  // namespace cr
