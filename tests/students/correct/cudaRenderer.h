// Test fixture for circle-renderer's student harness: a simple, correct
// course-format renderer (one thread per pixel over every circle, in order).
#ifndef FIXTURE_CUDA_RENDERER_H
#define FIXTURE_CUDA_RENDERER_H

#include "circleRenderer.h"

class CudaRenderer : public CircleRenderer {
public:
    CudaRenderer();
    virtual ~CudaRenderer();

    const Image* getImage();
    void setup();
    void loadScene(SceneName name, int seed = 0);
    void allocOutputImage(int width, int height);
    void clearImage();
    void advanceAnimation();
    void render();

private:
    Image* image;
    SceneName sceneName;
    int numCircles;
    float* position;
    float* velocity;
    float* color;
    float* radius;
    float* sparkStart;  // fireworks: each spark's restart point (x, y)

    float* devPosition;
    float* devVelocity;
    float* devColor;
    float* devRadius;
    float* devSparkStart;
    float* devImage;
};

#endif
