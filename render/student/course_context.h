// What the worker tells the course scene loader (course_impl.cpp) about the
// harness's request: the scene to hand to loadCircleScene.
#pragma once

#include "render/core/circles.h"

namespace cr::student {

/// The scene of the current Setup request (has_scene), set by the worker;
/// without one, the last built-in scene course_scene_for made.
struct CourseContext {
    bool has_scene = false;
    Scene scene;
};

/// The worker's one context (the course's free functions take none).
CourseContext& course_context();

/// The scene loadCircleScene hands out: the harness's scene when one is set,
/// else the built-in course scene `scene_value` (0..13) with `seed`. Throws
/// std::invalid_argument for an unknown value. The scene lives in
/// course_context() (no copy of a 2M-circle scene per loadScene call).
const Scene& course_scene_for(int scene_value, int seed);

}  // namespace cr::student
