// Fixture (circle-renderer's tests, not course code): a student's renderer
// of course layout B, edited on Windows (the build assembles this folder with
// CRLF line endings), including "CycleTimer.h" while the file on disk is
// cycleTimer.h. Its code is tests/students/correct/cudaRenderer.cu.
#ifndef FIXTURE_CUDA_RENDERER_H
#define FIXTURE_CUDA_RENDERER_H

#define FIXTURE_NO_SEED

#include "CycleTimer.h"
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

    double lastRenderSeconds = 0;  // the student's additions
    int framesDrawn = 0;

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
