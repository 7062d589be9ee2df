// circle-renderer's harness file (not a course file): the one call between
// a student's library and the worker process that loaded it, declared once
// for both sides. The library's entry file (cr_student_entry.cu) calls it;
// the worker (render/student/course_impl.cpp) defines it and exports it.
#pragma once

/// A scene's circles as the worker holds them (structure of arrays, `count`
/// entries each, in normalized coordinates; valid while the worker's scene is).
struct CrCourseCircles {
    int count;
    const float *x, *y, *z, *vx, *vy, *vz, *r, *g, *b, *radius;
};

/// The circles for SceneName `scene` (the harness's scene when it set one,
/// which it always does); seed < 0: the harness's seed. Returns 0, or 1 with
/// the reason in `message` (at most `capacity` bytes).
extern "C" int cr_worker_course_scene(int scene, int seed, CrCourseCircles* out, char* message, int capacity);
