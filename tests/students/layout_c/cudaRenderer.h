// Fixture (circle-renderer's tests, not course code): a student's renderer
// of course layout C that moved its constants struct into this header,
// defines `uint` before including thrust, and needs a define its Makefile
// passes. Its code is tests/students/correct/cudaRenderer.cu.
#ifndef FIXTURE_CUDA_RENDERER_H
#define FIXTURE_CUDA_RENDERER_H

#ifndef FIXTURE_MAKEFILE_DEFINE
#error "FIXTURE_MAKEFILE_DEFINE comes from this folder's Makefile (NVCCFLAGS)"
#endif

#define FIXTURE_PARAMS_IN_HEADER
#define FIXTURE_SCAN_WITHOUT_DIM

#define uint unsigned int
#include <thrust/device_ptr.h>

#include "circleRenderer.h"

struct Params {
    SceneName scene;
    int numCircles;
    float* position;
    float* velocity;
    float* color;
    float* radius;
    float* sparkStart;
    int width;
    int height;
    float* image;
};

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
    Params hostParams;  // the student's addition
};

#endif
