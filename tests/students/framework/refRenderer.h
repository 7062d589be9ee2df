// Fixture framework header (circle-renderer's tests, not course code): the
// CPU reference's class, with a member a student added. Nothing the harness
// builds includes it; it must not disturb the build.
#ifndef FIXTURE_REF_RENDERER_H
#define FIXTURE_REF_RENDERER_H

#include "circleRenderer.h"

class RefRenderer : public CircleRenderer {
public:
    int debugFrame = 0;  // the student's addition
};

#endif
