// Fixture (circle-renderer's tests, not course code): a student's renderer
// of course layout A, with members of the student's own. Its code is
// tests/students/correct/cudaRenderer.cu with the switches below.
#ifndef FIXTURE_CUDA_RENDERER_H
#define FIXTURE_CUDA_RENDERER_H

#define FIXTURE_NO_SEED
#define FIXTURE_INCLUSIVE_SCAN

#include "circleRenderer.h"

class CudaRenderer : public CircleRenderer {
public:
    CudaRenderer();
    virtual ~CudaRenderer();

    const Image* getImage();
    void setup();
    void loadScene(SceneName name);
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
    float* sparkStart;

    float* devPosition;
    float* devVelocity;
    float* devColor;
    float* devRadius;
    float* devSparkStart;
    float* devImage;
};

#endif
