// Fixture framework header in the style of course layout B (circle-renderer's
// tests, not course code): the scene loader without a seed.
#ifndef FIXTURE_SCENE_LOADER_H
#define FIXTURE_SCENE_LOADER_H

#include "circleRenderer.h"

void loadCircleScene(SceneName sceneName, int& numCircles, float*& position, float*& velocity, float*& color,
                     float*& radius);

#endif
