// Scenes: the circles a frame draws, stored as structure-of-arrays (SoA), and
// the generators of the course's scenes (SCENES.md, "The scenes").
//
// Units: x, y and radius are normalized scene coordinates ([0,1] spans the
// image, origin bottom-left); z is depth in [0,1]; velocities are normalized
// units per second (one animation step is dt = 1/60 s); colors are linear
// floats (may exceed 1 for some random scenes, as in the course).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/shading.h"

namespace cr {

/// Which animation step a scene runs on `advance` (see scenes/animation.h).
enum class Motion : int {
    None = 0,            ///< still scenes
    BouncingBalls = 1,   ///< gravity and damped bounces on the bottom edge
    Hypnosis = 2,        ///< radii grow by .01 and wrap to .02 past .5
    Fireworks = 3,       ///< sparks fly out and restart at their start points
    Snow = 4,            ///< falling flakes with noise, drag and respawn
    Linear = 5,          ///< position += velocity * dt (scene files)
};

/// All circles of a scene in input (= blending) order, as structure-of-arrays.
/// Every vector has `count()` entries. aux_x/aux_y hold per-circle animation
/// constants (fireworks: each spark's start point), empty when unused.
struct Scene {
    std::string name;
    ShadeMode shade = ShadeMode::Flat;
    Motion motion = Motion::None;
    uint32_t seed = 0;
    std::vector<float> x, y, z, vx, vy, vz, radius, r, g, b;
    std::vector<float> aux_x, aux_y;

    size_t count() const { return x.size(); }
    /// Resizes every per-circle array (new entries are zero).
    void resize(size_t n);
    /// Bytes held by the per-circle arrays (what a renderer uploads).
    size_t bytes() const;
};

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

/// Writes `scene` in the scene-file format (to a temporary name, then renames).
/// Throws std::runtime_error (cr::ImageIoError) when the file cannot be written.
void save_scene_file(const Scene& scene, const std::string& path);

}  // namespace cr
