// Fixture (circle-renderer's tests, not course code): a fast, correct
// renderer of course layout C, for timing a grade: the block-culled kernel of
// tests/students/correct/cudaRenderer.cu (FIXTURE_TILED). The build assembles
// it with layout_c's framework headers and layout_a's exclusiveScan.cu_inl.
#ifndef FIXTURE_CUDA_RENDERER_H
#define FIXTURE_CUDA_RENDERER_H

#define FIXTURE_TILED

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
    float* sparkStart;

    float* devPosition;
    float* devVelocity;
    float* devColor;
    float* devRadius;
    float* devSparkStart;
    float* devImage;
};

#endif
