// Scenes: the generators of the course's scenes (SCENES.md, "The scenes") and
// the scene-file format. The circle arrays themselves are render/core/circles.h.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/core/circles.h"

namespace cr {

/// Names of the built-in scenes, in the course's order plus `rand10M`.
const std::vector<std::string>& scene_names();

/// True when `name` is one of scene_names().
bool is_scene_name(const std::string& name);

/// Builds built-in scene `name` with random seed `seed` (srand(seed) first;
/// seed 0 behaves as 1, as glibc's srand). Throws std::invalid_argument for
/// an unknown name (the message lists the valid names).
Scene make_scene(const std::string& name, uint32_t seed = 0);

/// Number of circles scene `name` has (without generating it).
size_t scene_circle_count(const std::string& name);

/// Error in a scene file: carries file, 1-based line and reason in what().
struct SceneFileError : std::runtime_error {
    SceneFileError(const std::string& file, int line, const std::string& reason);
    std::string file;
    int line;
    std::string reason;
};

/// Loads a scene file (format in docs/SCENE_FORMAT.md). Throws SceneFileError
/// naming the file, the line and the reason for any malformed input.
Scene load_scene_file(const std::string& path);

/// Parses scene-file text; `file_label` names it in error messages.
Scene parse_scene_text(const std::string& text, const std::string& file_label);

/// Loads a file in the course's particle format (docs/SCENE_FORMAT.md, ".par";
/// the course's snow.par): first a count N, then N lines of 7 numbers
/// x y z vx vy vz radius, each read like fscanf("%f") (strtof). The result is
/// a still snow scene: snow shading and background, no motion, every flake
/// white. Throws SceneFileError (FILE:LINE: reason) for a bad count, too few
/// or too many numbers on a line, a non-number, a non-finite value, a
/// negative radius, a count that disagrees with the lines, an empty file, a
/// folder, or a file that cannot be read.
Scene load_particle_file(const std::string& path);

/// Parses particle-format text; `file_label` names it in error messages.
Scene parse_particle_text(const std::string& text, const std::string& file_label);

/// True when `path` names a particle file: it ends in ".par" (any case).
bool is_particle_path(const std::string& path);

/// Writes `scene` in the scene-file format (to a temporary name, then renames).
/// Throws std::runtime_error (cr::FileError) when the file cannot be written.
void save_scene_file(const Scene& scene, const std::string& path);

/// Writes `scene`'s circles in the course's particle format (a count, then
/// x y z vx vy vz radius per line, %.9g: read back with strtof, every value
/// is the same float; colors are not part of the format). For `render
/// grade`, which hands the course's render_ref the flakes the student's
/// renderer drew. Throws like save_scene_file.
void save_particle_file(const Scene& scene, const std::string& path);

}  // namespace cr
