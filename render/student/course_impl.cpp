// The worker's side of the course's scene loader: the student's library
// (its cr_student_entry.cu, compiled with the student's own headers) defines
// loadCircleScene in whichever form the student's sceneLoader.h declares, and
// asks the worker for the circles through cr_worker_course_scene. The worker
// executable exports it (-rdynamic), so the student's renderer loads exactly
// the circles `cpuref` draws, with the seed the harness was asked for, for
// every course layout.
#include <cstdio>
#include <stdexcept>

#include "render/student/course/cr_worker_abi.h"
#include "render/student/course_context.h"
#include "render/student/protocol.h"
#include "scenes/scene.h"

namespace cr::student {

CourseContext& course_context() {
    static CourseContext context;  // the course API has no context argument: one per worker process
    return context;
}

const Scene& course_scene_for(int scene_value, int seed) {
    CourseContext& c = course_context();
    if (c.has_scene) return c.scene;
    const std::string name = course_scene_name(scene_value);
    if (name.empty()) throw std::invalid_argument("loadCircleScene: unknown scene " + std::to_string(scene_value));
    c.scene = make_scene(name, static_cast<uint32_t>(seed < 0 ? 0 : seed));
    return c.scene;
}

}  // namespace cr::student

/// See cr_worker_abi.h: the circles of course_scene_for (seed < 0: the harness's).
extern "C" int cr_worker_course_scene(int scene_value, int seed, CrCourseCircles* out, char* message, int capacity) {
    try {
        const cr::Scene& s = cr::student::course_scene_for(scene_value, seed);
        *out = {static_cast<int>(s.count()), s.x.data(), s.y.data(), s.z.data(), s.vx.data(), s.vy.data(),
                s.vz.data(), s.r.data(), s.g.data(), s.b.data(), s.radius.data()};
        return 0;
    } catch (const std::exception& e) {
        std::snprintf(message, static_cast<size_t>(capacity), "%s", e.what());
        return 1;
    }
}
