// circle-renderer's version of the course framework's sceneLoader.h. In the
// harness, loadCircleScene hands the student's renderer circle-renderer's own
// scenes: exactly the circles `cpuref` draws (any seed, scene files, snow.par).
#ifndef __SCENE_LOADER_H__
#define __SCENE_LOADER_H__

#include "circleRenderer.h"

/// Allocates (new float[]) and fills the scene's arrays: position, velocity
/// and color 3 floats a circle, radius 1; numCircles gets the count.
void loadCircleScene(SceneName sceneName, int& numCircles, float*& position, float*& velocity, float*& color,
                     float*& radius, int seed);

/// The form of course layouts A and B (before October 2025), without a
/// seed: the harness hands out the circles of the seed it was asked for.
void loadCircleScene(SceneName sceneName, int& numCircles, float*& position, float*& velocity, float*& color,
                     float*& radius);

#endif
