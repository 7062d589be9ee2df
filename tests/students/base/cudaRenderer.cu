// Test fixture base (not course code): see cudaRenderer.h. Circles are
// packed as (x, y, r, red, green, blue); the render kernel comes from the
// fixture's fixture_kernels.cu_inl as
//   void launchRender(const float* circles, int n, float* image, int w, int h);
#include <cuda_runtime.h>

#include <cstdio>

#include "cudaRenderer.h"
#include "image.h"
#include "sceneLoader.h"

// The exactly rounded blend of one flat circle (alpha .5) at pixel center
// (cx, cy), as the CPU reference computes it.
__device__ __inline__ void blendCircle(const float* c, float cx, float cy, float4& acc) {
    const float dx = __fsub_rn(c[0], cx), dy = __fsub_rn(c[1], cy);
    if (__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)) > __fmul_rn(c[2], c[2])) return;
    acc.x = __fadd_rn(__fmul_rn(.5f, c[3]), __fmul_rn(.5f, acc.x));
    acc.y = __fadd_rn(__fmul_rn(.5f, c[4]), __fmul_rn(.5f, acc.y));
    acc.z = __fadd_rn(__fmul_rn(.5f, c[5]), __fmul_rn(.5f, acc.z));
    acc.w += .5f;
}

#include "fixture_kernels.cu_inl"

__global__ void clearWhite(float* image, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ((float4*)image)[i] = make_float4(1.f, 1.f, 1.f, 1.f);
}

CudaRenderer::~CudaRenderer() {
    delete[] position;
    delete[] velocity;
    delete[] color;
    delete[] radius;
    cudaFree(devCircles);
    cudaFree(devImage);
}

const Image* CudaRenderer::getImage() {
    cudaMemcpy(image->data, devImage, sizeof(float) * 4 * image->width * image->height, cudaMemcpyDeviceToHost);
    return image;
}

void CudaRenderer::loadScene(SceneName name, int seed) {
    loadCircleScene(name, numCircles, position, velocity, color, radius, seed);
}

void CudaRenderer::allocOutputImage(int width, int height) { image = new Image(width, height); }

void CudaRenderer::setup() {
    float* packed = new float[6 * numCircles];
    for (int i = 0; i < numCircles; i++) {
        const float v[6] = {position[3 * i], position[3 * i + 1], radius[i], color[3 * i], color[3 * i + 1], color[3 * i + 2]};
        for (int k = 0; k < 6; k++) packed[6 * i + k] = v[k];
    }
    cudaMalloc(&devCircles, sizeof(float) * 6 * (numCircles > 0 ? numCircles : 1));
    cudaMemcpy(devCircles, packed, sizeof(float) * 6 * numCircles, cudaMemcpyHostToDevice);
    cudaMalloc(&devImage, sizeof(float) * 4 * image->width * image->height);
    delete[] packed;
}

void CudaRenderer::clearImage() {
    const int n = image->width * image->height;
    clearWhite<<<(n + 255) / 256, 256>>>(devImage, n);
}

void CudaRenderer::render() { launchRender(devCircles, numCircles, devImage, image->width, image->height); }
