// Where a run's circles come from, decided in one place for every front end
// (the `render` command, `render bench`, the GUI, and the coming harness for
// students' renderers): a built-in scene, a scene file, or the course's
// particle file (.par) - which snowsingle reads from ./snow.par, as the
// course does, when there is one.
#pragma once

#include <cstdint>
#include <string>

#include "scenes/scene.h"

namespace cr {

/// The particle file the course's snowsingle reads from the working directory.
constexpr const char* kCourseParticleFile = "./snow.par";

/// What the user asked for. Give `name` or `file`, not both.
struct SceneRequest {
    std::string name;       ///< built-in scene name (scene_names())
    std::string file;       ///< scene file: a .par in the course's particle format, else the scene-file format
    std::string particles;  ///< snowsingle only: the particle file to read instead of ./snow.par
    uint32_t seed = 0;      ///< random seed of built-in scenes (unused for files)
};

/// A loaded scene and what the user should know about where it came from.
struct SceneLoad {
    Scene scene;
    /// One line for the user ("" when there is nothing to say), e.g.
    /// "snowsingle: 100000 flakes from ./snow.par".
    std::string note;
    /// The particle file the flakes were read from ("" when generated or a
    /// scene file). Stored reference images are of the generated stand-in,
    /// so they do not apply when this is set for snowsingle.
    std::string particle_file;
};

/// Loads the scene of `req`:
///  - `file` ending in .par (any case): load_particle_file, a still snow scene;
///    any other `file`: load_scene_file.
///  - `name` snowsingle: `particles` when given, else ./snow.par when it
///    exists, read as the course does (the note says how many flakes from
///    where); without either, the project's generated stand-in, and the note
///    says the course's file was not found and how to give one.
///  - any other `name`: make_scene(name, seed).
/// The scene's name is the request's name, or the file path for files.
/// Throws std::invalid_argument for no scene, both a name and a file, an
/// unknown name, or `particles` with anything but snowsingle; SceneFileError
/// (FILE:LINE: reason) for a file that is missing or malformed.
SceneLoad load_scene(const SceneRequest& req);

}  // namespace cr
