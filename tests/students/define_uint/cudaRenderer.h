// Fixture "define_uint" (from the base) for circle-renderer's student harness (not course code):
// a minimal course-format renderer of the still, flat scenes. Each fixture
// folder adds fixture_kernels.cu_inl (its render kernel) and may replace this
// header; tests/CMakeLists.txt assembles base + variant into the build tree.
#ifndef FIXTURE_BASE_RENDERER_H
#define FIXTURE_BASE_RENDERER_H

#define uint unsigned int
#include <thrust/device_ptr.h>
#include <thrust/fill.h>

#include "circleRenderer.h"

class CudaRenderer : public CircleRenderer {
public:
    CudaRenderer() : image(0), numCircles(0), position(0), velocity(0), color(0), radius(0), devCircles(0), devImage(0) {}
    virtual ~CudaRenderer();
    const Image* getImage();
    void setup();
    void loadScene(SceneName name, int seed = 0);
    void allocOutputImage(int width, int height);
    void clearImage();
    void advanceAnimation() {}
    void render();

private:
    Image* image;
    int numCircles;
    float *position, *velocity, *color, *radius;
    float* devCircles;  // per circle: x, y, r, red, green, blue
    float* devImage;
};

#endif
