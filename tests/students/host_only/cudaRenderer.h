// Fixture (circle-renderer's tests, not course code): a course-format
// renderer that draws on the CPU inside the student's library, so that the
// harness's whole path (the folder read as its Makefile builds it, the
// layout's loadScene, loadCircleScene with or without a seed, the Image read
// through the folder's own image.h) is tested on machines without a GPU
// (with CR_STUDENT_NO_CUDA_SYNC=1). The build assembles it with each
// layout's framework headers (host_a, host_b, host_c); layouts A and B get
// -DFIXTURE_NO_SEED from their Makefile. Flat scenes only. host_slow sleeps
// FIXTURE_HOST_SLEEP_MS in every render(); host_hang hangs in render() after
// FIXTURE_HOST_HANG_AFTER frames (both layout C, for the GUI's workbench test);
// host_hog asks for FIXTURE_HOST_HOG_GIB GiB of device memory in setup();
// host_exit calls exit(FIXTURE_HOST_EXIT_CODE) in render().
#ifndef FIXTURE_HOST_RENDERER_H
#define FIXTURE_HOST_RENDERER_H

#include "CycleTimer.h"
#include "circleRenderer.h"

class CudaRenderer : public CircleRenderer {
public:
    CudaRenderer() : image(0), numCircles(0), position(0), velocity(0), color(0), radius(0) {}
    virtual ~CudaRenderer();
    const Image* getImage();
    void setup();
#ifdef FIXTURE_NO_SEED
    void loadScene(SceneName name);
#else
    void loadScene(SceneName name, int seed = 0);
#endif
    void allocOutputImage(int width, int height);
    void clearImage();
    void advanceAnimation() {}
    void render();

    double renderSeconds = 0;  // the student's addition

private:
    Image* image;
    int numCircles;
    float *position, *velocity, *color, *radius;
};

#endif
