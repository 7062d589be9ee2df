#include "render/scene_source.h"

#include <stdexcept>
#include <sys/stat.h>

namespace cr {

namespace {

bool path_exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

/// snowsingle: the flakes of a particle file when one is given or ./snow.par
/// exists, else the generated stand-in.
SceneLoad load_snowsingle(const SceneRequest& req) {
    SceneLoad out;
    std::string path = req.particles;
    if (path.empty() && path_exists(kCourseParticleFile)) path = kCourseParticleFile;
    if (path.empty()) {
        out.scene = make_scene("snowsingle", req.seed);
        out.note = std::string("snowsingle: the course's particle file ") + kCourseParticleFile +
                   " was not found, so the project's generated stand-in is drawn (put snow.par in the working "
                   "directory or give --particles PATH)";
        return out;
    }
    out.scene = load_particle_file(path);
    out.scene.name = "snowsingle";
    out.scene.seed = req.seed;
    out.particle_file = path;
    out.note = "snowsingle: " + std::to_string(out.scene.count()) + (out.scene.count() == 1 ? " flake" : " flakes") +
               " from " + path;
    return out;
}

}  // namespace

SceneLoad load_scene(const SceneRequest& req) {
    if (req.name.empty() && req.file.empty())
        throw std::invalid_argument("no scene: give a scene name or a scene file");
    if (!req.name.empty() && !req.file.empty())
        throw std::invalid_argument("give either a scene name or a scene file, not both");
    if (!req.particles.empty() && req.name != "snowsingle")
        throw std::invalid_argument("--particles goes with the snowsingle scene only (the course's particle scene), not " +
                                    (req.file.empty() ? "'" + req.name + "'" : std::string("a scene file")) +
                                    "; a .par file of its own loads with --scene-file PATH.par");
    SceneLoad out;
    if (!req.file.empty()) {
        if (is_particle_path(req.file)) {
            out.scene = load_particle_file(req.file);
            out.particle_file = req.file;
        } else {
            out.scene = load_scene_file(req.file);
        }
        return out;
    }
    if (req.name == "snowsingle") return load_snowsingle(req);
    out.scene = make_scene(req.name, req.seed);
    return out;
}

}  // namespace cr
