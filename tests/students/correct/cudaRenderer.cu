// Test fixture for circle-renderer's student harness (not course code): a
// correct course-format renderer. One thread per pixel walks every circle in
// input order, so blending order holds without atomics. All arithmetic that
// decides coverage or moves circles uses __fmul_rn/__fadd_rn (no fused
// multiply-add), so images equal the CPU reference's.
//
// The course-layout fixtures (tests/students/layout_*) reuse this file with
// their own cudaRenderer.h, which may define:
//   FIXTURE_NO_SEED              loadScene(SceneName) of layouts A and B
//   FIXTURE_PARAMS_IN_HEADER     the constants struct Params is in cudaRenderer.h
//   FIXTURE_INCLUSIVE_SCAN       call the inclusive scan the folder added to its
//                                exclusiveScan.cu_inl; the background depends on it
//   FIXTURE_SCAN_WITHOUT_DIM     include exclusiveScan.cu_inl without defining
//                                SCAN_BLOCK_DIM (and never call it)
//   FIXTURE_TILED                render with the block-culled kernel (a fast
//                                renderer, for timing a grade)
#include <cuda.h>
#include <cuda_runtime.h>
#include <driver_functions.h>

#include <cmath>
#include <cstdio>

#include "cudaRenderer.h"
#include "image.h"
#include "noise.h"
#include "sceneLoader.h"
#include "util.h"

#define COLOR_MAP_SIZE 5

#if defined(FIXTURE_INCLUSIVE_SCAN) || defined(FIXTURE_TILED)
#define SCAN_BLOCK_DIM 256
#include "exclusiveScan.cu_inl"
#elif defined(FIXTURE_SCAN_WITHOUT_DIM)
#include "exclusiveScan.cu_inl"
#endif

#ifndef FIXTURE_PARAMS_IN_HEADER
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
#endif

__constant__ Params cuParams;
__constant__ int cuConstNoiseXPermutationTable[256];
__constant__ int cuConstNoiseYPermutationTable[256];
__constant__ float cuConstNoise1DValueTable[256];
__constant__ float cuConstColorRamp[COLOR_MAP_SIZE][3];

#include "lookupColor.cu_inl"
#include "noiseCuda.cu_inl"

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) fprintf(stderr, "CUDA %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
    } while (0)

static bool isSnow(SceneName s) { return s == SNOWFLAKES || s == SNOWFLAKES_SINGLE_FRAME; }

// 1 when the inclusive scan of 256 ones ends at 256 (FIXTURE_INCLUSIVE_SCAN),
// set in setup(); the white background is drawn only then.
__device__ int cuScanOk = 1;

#ifdef FIXTURE_INCLUSIVE_SCAN
__global__ void scanCheckKernel() {
    __shared__ uint input[SCAN_BLOCK_DIM], output[SCAN_BLOCK_DIM];
    input[threadIdx.x] = 1;
    __syncthreads();
    sharedMemInclusiveScan(threadIdx.x, input, output, SCAN_BLOCK_DIM);
    if (threadIdx.x == SCAN_BLOCK_DIM - 1) cuScanOk = output[threadIdx.x] == SCAN_BLOCK_DIM ? 1 : 0;
}
#endif

__global__ void clearKernel(float r, float g, float b, float a, bool snow) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cuParams.width || y >= cuParams.height) return;
    float4 v = cuScanOk ? make_float4(r, g, b, a) : make_float4(0.f, 0.f, 0.f, a);
    if (snow) {
        const float shade = __fadd_rn(.4f, __fdiv_rn(__fmul_rn(.45f, (float)(cuParams.height - y)), (float)cuParams.height));
        v = make_float4(shade, shade, shade, 1.f);
    }
    ((float4*)cuParams.image)[y * cuParams.width + x] = v;
}

__global__ void bounceKernel() {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cuParams.numCircles) return;
    const float dt = 1.f / 60.f;
    float* y = &cuParams.position[3 * i + 1];
    float* vy = &cuParams.velocity[3 * i + 1];
    if (*vy == 0.f && *y == 0.f) return;
    const float oldVy = *vy, oldY = *y;
    float v = oldVy;
    if (oldY < 0.f && oldVy < 0.f) v = __fmul_rn(v, -0.8f);
    v = __fadd_rn(v, __fmul_rn(-2.8f, dt));
    float p = __fadd_rn(oldY, __fmul_rn(v, dt));
    if (fabsf(__fsub_rn(v, oldVy)) < .001f && oldY < 0.f && fabsf(__fsub_rn(p, oldY)) < .001f) {
        v = 0.f;
        p = 0.f;
    }
    *y = p;
    *vy = v;
}

__global__ void hypnosisKernel() {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cuParams.numCircles) return;
    const float r = cuParams.radius[i];
    cuParams.radius[i] = r > .5f ? .02f : __fadd_rn(r, .01f);
}

__global__ void fireworksKernel() {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < NUM_FIREWORKS || i >= cuParams.numCircles) return;
    const int f = (i - NUM_FIREWORKS) / NUM_SPARKS;
    const float dt = 1.f / 60.f;
    const float x = __fadd_rn(cuParams.position[3 * i], __fmul_rn(cuParams.velocity[3 * i], dt));
    const float y = __fadd_rn(cuParams.position[3 * i + 1], __fmul_rn(cuParams.velocity[3 * i + 1], dt));
    const float dx = __fsub_rn(x, cuParams.position[3 * f]);
    const float dy = __fsub_rn(y, cuParams.position[3 * f + 1]);
    const bool restart = __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)) > .25f * .25f;
    cuParams.position[3 * i] = restart ? cuParams.sparkStart[2 * i] : x;
    cuParams.position[3 * i + 1] = restart ? cuParams.sparkStart[2 * i + 1] : y;
}

__global__ void snowKernel() {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cuParams.numCircles) return;
    const float dt = 1.f / 60.f;
    float* p = &cuParams.position[3 * i];
    float* v = &cuParams.velocity[3 * i];
    const float r = cuParams.radius[i];
    float x = p[0], y = p[1], z = p[2], vx = v[0], vy = v[1];
    const float scale = fminf(fmaxf(__fsub_rn(1.f, z), .1f), 1.f);
    float2 n = cudaVec2CellNoise(make_float3(__fmul_rn(10.f, x), __fmul_rn(10.f, y), __fmul_rn(255.f, z)), i);
    n.x = __fmul_rn(n.x, 7.5f);
    n.y = __fmul_rn(n.y, 5.f);
    const float dragx = __fmul_rn(-1.f * 2.f, vx), dragy = __fmul_rn(-1.f * 2.f, vy);
    x = __fadd_rn(x, __fmul_rn(vx, dt));
    y = __fadd_rn(y, __fmul_rn(vy, dt));
    z = __fadd_rn(z, __fmul_rn(v[2], dt));
    vx = __fadd_rn(vx, __fmul_rn(__fmul_rn(scale, __fadd_rn(n.x, dragx)), dt));
    vy = __fadd_rn(vy, __fmul_rn(__fmul_rn(scale, __fadd_rn(__fadd_rn(-1.8f, n.y), dragy)), dt));
    if (__fadd_rn(y, r) < 0.f || __fadd_rn(x, r) < 0.f || __fsub_rn(x, r) > 1.f) {
        n = cudaVec2CellNoise(make_float3(__fmul_rn(255.f, x), __fmul_rn(255.f, y), __fmul_rn(255.f, z)), i);
        x = __fadd_rn(.5f, __fmul_rn(.5f, n.x));
        y = __fadd_rn(1.35f, r);
        vx = __fmul_rn(2.f, n.y);
        vy = 0.f;
    }
    p[0] = x;
    p[1] = y;
    p[2] = z;
    v[0] = vx;
    v[1] = vy;
}

// Blends circle i over acc at pixel center (cx, cy), as the CPU reference does.
__device__ __inline__ void shadeCircle(int i, float cx, float cy, float4& acc, bool snow) {
    const float x = cuParams.position[3 * i], y = cuParams.position[3 * i + 1];
    const float r = cuParams.radius[i];
    const float dx = __fsub_rn(x, cx), dy = __fsub_rn(y, cy);
    const float d2 = __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy));
    if (d2 > __fmul_rn(r, r)) return;
    float3 c;
    float alpha;
    if (snow) {
        const float t = sqrtf(d2) / r;
        c = lookupColor(t);
        float maxAlpha = .6f + .4f * (1.f - cuParams.position[3 * i + 2]);
        maxAlpha = .5f * fminf(fmaxf(maxAlpha, 0.f), 1.f);
        alpha = maxAlpha * expf(-4.f * t * t);
    } else {
        c = make_float3(cuParams.color[3 * i], cuParams.color[3 * i + 1], cuParams.color[3 * i + 2]);
        alpha = .5f;
    }
    const float keep = 1.f - alpha;
    acc.x = __fadd_rn(__fmul_rn(alpha, c.x), __fmul_rn(keep, acc.x));
    acc.y = __fadd_rn(__fmul_rn(alpha, c.y), __fmul_rn(keep, acc.y));
    acc.z = __fadd_rn(__fmul_rn(alpha, c.z), __fmul_rn(keep, acc.z));
    acc.w += alpha;
}

__global__ void renderKernel(bool snow) {
    const int px = blockIdx.x * blockDim.x + threadIdx.x;
    const int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= cuParams.width || py >= cuParams.height) return;
    const float invW = 1.f / cuParams.width, invH = 1.f / cuParams.height;
    const float cx = __fmul_rn(invW, px + .5f), cy = __fmul_rn(invH, py + .5f);
    float4 acc = ((float4*)cuParams.image)[py * cuParams.width + px];
    for (int i = 0; i < cuParams.numCircles; i++) shadeCircle(i, cx, cy, acc, snow);
    ((float4*)cuParams.image)[py * cuParams.width + px] = acc;
}

#ifdef FIXTURE_TILED
// FIXTURE_TILED: a 16x16-pixel block takes the circles 256 at a time; each
// thread tests one circle's bounding box against the block's box, a block
// scan (the folder's sharedMemExclusiveScan) compacts the hits in input
// order, and every pixel blends the compacted list. Every thread reaches
// every barrier: pixels outside the image only skip their blends.
__global__ void renderTiledKernel(bool snow) {
    __shared__ uint hit[SCAN_BLOCK_DIM], slot[SCAN_BLOCK_DIM], scratch[2 * SCAN_BLOCK_DIM];
    __shared__ int list[SCAN_BLOCK_DIM];
    __shared__ int count;
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    const bool inside = px < cuParams.width && py < cuParams.height;
    const float invW = 1.f / cuParams.width, invH = 1.f / cuParams.height;
    const float boxL = blockIdx.x * blockDim.x * invW, boxR = (blockIdx.x + 1) * blockDim.x * invW;
    const float boxB = blockIdx.y * blockDim.y * invH, boxT = (blockIdx.y + 1) * blockDim.y * invH;
    const float cx = __fmul_rn(invW, px + .5f), cy = __fmul_rn(invH, py + .5f);
    float4 acc = inside ? ((float4*)cuParams.image)[py * cuParams.width + px] : make_float4(0.f, 0.f, 0.f, 0.f);
    for (int base = 0; base < cuParams.numCircles; base += SCAN_BLOCK_DIM) {
        const int i = base + t;
        uint h = 0;
        if (i < cuParams.numCircles) {
            const float x = cuParams.position[3 * i], y = cuParams.position[3 * i + 1], r = cuParams.radius[i];
            h = x + r >= boxL && x - r <= boxR && y + r >= boxB && y - r <= boxT;
        }
        hit[t] = h;
        __syncthreads();
        sharedMemExclusiveScan(t, hit, slot, scratch, SCAN_BLOCK_DIM);
        __syncthreads();
        if (h) list[slot[t]] = i;
        if (t == SCAN_BLOCK_DIM - 1) count = slot[t] + h;
        __syncthreads();
        if (inside)
            for (int k = 0; k < count; k++) shadeCircle(list[k], cx, cy, acc, snow);
        __syncthreads();
    }
    if (inside) ((float4*)cuParams.image)[py * cuParams.width + px] = acc;
}
#endif

CudaRenderer::CudaRenderer()
    : image(NULL), numCircles(0), position(NULL), velocity(NULL), color(NULL), radius(NULL), sparkStart(NULL),
      devPosition(NULL), devVelocity(NULL), devColor(NULL), devRadius(NULL), devSparkStart(NULL), devImage(NULL) {}

CudaRenderer::~CudaRenderer() {
    if (image) {
        delete[] image->data;
        delete image;
    }
    delete[] position;
    delete[] velocity;
    delete[] color;
    delete[] radius;
    delete[] sparkStart;
    cudaFree(devPosition);
    cudaFree(devVelocity);
    cudaFree(devColor);
    cudaFree(devRadius);
    cudaFree(devSparkStart);
    cudaFree(devImage);
}

const Image* CudaRenderer::getImage() {
    CHECK(cudaMemcpy(image->data, devImage, sizeof(float) * 4 * image->width * image->height, cudaMemcpyDeviceToHost));
    return image;
}

#ifdef FIXTURE_NO_SEED
void CudaRenderer::loadScene(SceneName scene) {
    sceneName = scene;
    loadCircleScene(sceneName, numCircles, position, velocity, color, radius);
}
#else
void CudaRenderer::loadScene(SceneName scene, int seed) {
    sceneName = scene;
    loadCircleScene(sceneName, numCircles, position, velocity, color, radius, seed);
}
#endif

void CudaRenderer::allocOutputImage(int width, int height) {
    image = new Image(width, height);
}

void CudaRenderer::setup() {
    // Spark restart points, computed on the host as the scene was generated.
    sparkStart = new float[2 * numCircles];
    for (int i = 0; i < numCircles; i++) {
        sparkStart[2 * i] = position[3 * i];
        sparkStart[2 * i + 1] = position[3 * i + 1];
        if (sceneName == FIREWORKS && i >= NUM_FIREWORKS) {
            const int f = (i - NUM_FIREWORKS) / NUM_SPARKS, j = (i - NUM_FIREWORKS) % NUM_SPARKS;
            const float angle = (float)j * 2.f * 3.14159f / (float)NUM_SPARKS;
            sparkStart[2 * i] = position[3 * f] + std::cos(angle) * .005f;
            sparkStart[2 * i + 1] = position[3 * f + 1] + std::sin(angle) * .005f;
        }
    }
    const size_t n3 = sizeof(float) * 3 * numCircles;
    CHECK(cudaMalloc(&devPosition, n3));
    CHECK(cudaMalloc(&devVelocity, n3));
    CHECK(cudaMalloc(&devColor, n3));
    CHECK(cudaMalloc(&devRadius, sizeof(float) * numCircles));
    CHECK(cudaMalloc(&devSparkStart, sizeof(float) * 2 * numCircles));
    CHECK(cudaMalloc(&devImage, sizeof(float) * 4 * image->width * image->height));
    CHECK(cudaMemcpy(devPosition, position, n3, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(devVelocity, velocity, n3, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(devColor, color, n3, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(devRadius, radius, sizeof(float) * numCircles, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(devSparkStart, sparkStart, sizeof(float) * 2 * numCircles, cudaMemcpyHostToDevice));

    Params p = {sceneName, numCircles, devPosition, devVelocity, devColor, devRadius, devSparkStart,
                image->width, image->height, devImage};
    CHECK(cudaMemcpyToSymbol(cuParams, &p, sizeof(Params)));
    int* permX;
    int* permY;
    float* values;
    getNoiseTables(&permX, &permY, &values);
    CHECK(cudaMemcpyToSymbol(cuConstNoiseXPermutationTable, permX, sizeof(int) * 256));
    CHECK(cudaMemcpyToSymbol(cuConstNoiseYPermutationTable, permY, sizeof(int) * 256));
    CHECK(cudaMemcpyToSymbol(cuConstNoise1DValueTable, values, sizeof(float) * 256));
    const float ramp[COLOR_MAP_SIZE][3] = {{1.f, 1.f, 1.f}, {1.f, 1.f, 1.f}, {.8f, .9f, 1.f}, {.8f, .9f, 1.f}, {.8f, .8f, 1.f}};
    CHECK(cudaMemcpyToSymbol(cuConstColorRamp, ramp, sizeof(ramp)));
#ifdef FIXTURE_INCLUSIVE_SCAN
    scanCheckKernel<<<1, SCAN_BLOCK_DIM>>>();
    CHECK(cudaDeviceSynchronize());
#endif
}

void CudaRenderer::clearImage() {
    const dim3 block(16, 16);
    const dim3 grid((image->width + 15) / 16, (image->height + 15) / 16);
    clearKernel<<<grid, block>>>(1.f, 1.f, 1.f, 1.f, isSnow(sceneName));
}

void CudaRenderer::advanceAnimation() {
    const int blocks = (numCircles + 255) / 256;
    if (blocks == 0) return;
    if (sceneName == BOUNCING_BALLS) bounceKernel<<<blocks, 256>>>();
    else if (sceneName == HYPNOSIS) hypnosisKernel<<<blocks, 256>>>();
    else if (sceneName == FIREWORKS) fireworksKernel<<<blocks, 256>>>();
    else if (sceneName == SNOWFLAKES) snowKernel<<<blocks, 256>>>();
}

void CudaRenderer::render() {
    const dim3 block(16, 16);
    const dim3 grid((image->width + 15) / 16, (image->height + 15) / 16);
#ifdef FIXTURE_TILED
    renderTiledKernel<<<grid, block>>>(isSnow(sceneName));
#else
    renderKernel<<<grid, block>>>(isSnow(sceneName));
#endif
}
