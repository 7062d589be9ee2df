// Fixture (circle-renderer's tests, not course code): see cudaRenderer.h.
// Circle by circle in input order, each over the pixels of its bounding box
// (with a pixel of margin), blended exactly as the CPU reference does: the
// products and sums rounded separately (x86-64 g++ contracts nothing into
// fused multiply-adds without -march).
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "cudaRenderer.h"
#include "image.h"
#include "sceneLoader.h"

CudaRenderer::~CudaRenderer() {
    delete[] position;
    delete[] velocity;
    delete[] color;
    delete[] radius;
    if (image) delete[] image->data;
    delete image;
}

const Image* CudaRenderer::getImage() { return image; }

#ifdef FIXTURE_NO_SEED
void CudaRenderer::loadScene(SceneName name) {
    loadCircleScene(name, numCircles, position, velocity, color, radius);
}
#else
void CudaRenderer::loadScene(SceneName name, int seed) {
    loadCircleScene(name, numCircles, position, velocity, color, radius, seed);
}
#endif

void CudaRenderer::allocOutputImage(int width, int height) { image = new Image(width, height); }

void CudaRenderer::setup() {
#ifdef FIXTURE_HOST_HOG_GIB  // host_hog: more device memory than the harness's budget gives
    void* hog = 0;
    if (cudaMalloc(&hog, (size_t)FIXTURE_HOST_HOG_GIB << 30) != cudaSuccess) std::fprintf(stderr, "cudaMalloc failed\n");
#endif
}

void CudaRenderer::clearImage() { image->clear(1.f, 1.f, 1.f, 1.f); }

void CudaRenderer::render() {
    const double t0 = CycleTimer::currentSeconds();
#ifdef FIXTURE_HOST_SLEEP_MS  // a slow renderer (host_slow): the window must not wait for it
    usleep(FIXTURE_HOST_SLEEP_MS * 1000);
#endif
#ifdef FIXTURE_HOST_EXIT_CODE  // host_exit: an error check that ends the program with a code
    std::exit(FIXTURE_HOST_EXIT_CODE);
#endif
#ifdef FIXTURE_HOST_HANG_AFTER  // a renderer that hangs after some frames (host_hang)
    static int drawn = 0;
    if (++drawn > FIXTURE_HOST_HANG_AFTER)
        for (;;) sleep(1);
#endif
    const int w = image->width, h = image->height;
    const float invW = 1.f / w, invH = 1.f / h;
    for (int i = 0; i < numCircles; i++) {
        const float x = position[3 * i], y = position[3 * i + 1], r = radius[i];
        const int x0 = std::max(0, (int)((x - r) * w) - 1), x1 = std::min(w, (int)((x + r) * w) + 2);
        const int y0 = std::max(0, (int)((y - r) * h) - 1), y1 = std::min(h, (int)((y + r) * h) + 2);
        for (int py = y0; py < y1; py++)
            for (int px = x0; px < x1; px++) {
                const float cx = invW * (px + .5f), cy = invH * (py + .5f);
                const float dx = x - cx, dy = y - cy;
                const float dx2 = dx * dx, dy2 = dy * dy;
                if (dx2 + dy2 > r * r) continue;
                float* p = image->data + 4 * (py * w + px);
                for (int c = 0; c < 3; c++) {
                    const float a = .5f * color[3 * i + c], b = .5f * p[c];
                    p[c] = a + b;
                }
                p[3] += .5f;
            }
    }
    renderSeconds = CycleTimer::currentSeconds() - t0;
}
