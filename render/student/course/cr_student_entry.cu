// circle-renderer's entry points into a student's renderer (not a course
// file). The harness compiles this file with the student's own headers
// (circleRenderer.h, image.h, cudaRenderer.h as they wrote them, of any
// course year) into the student's shared library. The worker process finds
// these functions with dlsym and never sees the student's types: it holds the
// renderer as an opaque pointer, so a CudaRenderer with added members, an
// Image with added members, or an older year's loadScene all work.
//   cr_student_create/destroy   new CudaRenderer() / delete it
//   cr_student_alloc, _load, _setup, _clear, _advance, _render
//                               the course's calls; _load calls loadScene(name,
//                               seed) or, for layouts A and B, loadScene(name)
//   cr_student_image            getImage(): width, height, data, read through
//                               the student's own Image
//   cr_student_sync             cudaDeviceSynchronize(), then the last launch
//                               error, in the student's own CUDA runtime; 0 when
//                               fine, else the error code with "name<TAB>text"
//   cr_student_peek_error       the last CUDA error without waiting (the worker
//                               asks when the student's code calls exit())
//   cr_student_budget, _budget_refused
//                               the device-memory budget: the student's
//                               cudaMalloc, cudaMallocManaged, cudaMallocPitch and
//                               cudaMallocAsync are linked to the __wrap_ functions
//                               below (ld --wrap), which refuse an allocation past
//                               the budget (cudaErrorMemoryAllocation, inside the
//                               student's process) and say so once the call returns
//   cr_student_profiler         cudaProfilerStart() (on) or cudaProfilerStop()
// It also defines the course's host functions the student's code calls, as
// the student's headers declare them: loadCircleScene (with and without the
// seed of layout C) and writePPMImage. The circles come from the worker
// (cr_worker_course_scene), exactly those `cpuref` draws.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "circleRenderer.h"
#include "cr_worker_abi.h"
#include "image.h"
#include "cudaRenderer.h"

namespace cr_entry {

float* triples(int n, const float* a, const float* b, const float* c) {
    float* out = new float[3 * (n > 0 ? n : 1)];
    for (int i = 0; i < n; i++) {
        out[3 * i + 0] = a[i];
        out[3 * i + 1] = b[i];
        out[3 * i + 2] = c[i];
    }
    return out;
}

void load_circles(int scene, int seed, int& numCircles, float*& position, float*& velocity, float*& color,
                  float*& radius) {
    CrCourseCircles c;
    char message[512] = {0};
    if (cr_worker_course_scene(scene, seed, &c, message, sizeof message) != 0) throw std::invalid_argument(message);
    numCircles = c.count;
    position = triples(c.count, c.x, c.y, c.z);
    velocity = triples(c.count, c.vx, c.vy, c.vz);
    color = triples(c.count, c.r, c.g, c.b);
    radius = new float[c.count > 0 ? c.count : 1];
    for (int i = 0; i < c.count; i++) radius[i] = c.radius[i];
}

// loadScene(name, seed) when the student's class has it (layout C), else
// loadScene(name) (layouts A and B): the int/long overloads pick the first
// that compiles.
template <class R>
auto load_scene(R& r, SceneName name, int seed, int) -> decltype(r.loadScene(name, seed), void()) {
    r.loadScene(name, seed);
}
template <class R>
void load_scene(R& r, SceneName name, int, long) {
    r.loadScene(name);
}

CudaRenderer& renderer(void* p) { return *static_cast<CudaRenderer*>(p); }

/// The student's device memory as allocated through the wrapped calls.
struct Budget {
    std::mutex m;
    unsigned long long limit = 0, held = 0;  // bytes; limit 0: none
    std::unordered_map<void*, unsigned long long> sizes;
    bool refused = false;
    unsigned long long refused_bytes = 0, held_then = 0;
    const char* refused_call = "";
};

// Never destroyed: the CUDA runtime's own exit handlers may still free memory.
Budget& budget() {
    static Budget* b = new Budget;
    return *b;
}

bool admit(unsigned long long bytes, const char* call) {
    Budget& b = budget();
    std::lock_guard<std::mutex> lock(b.m);
    if (b.limit == 0 || b.held + bytes <= b.limit) return true;
    b.refused = true;
    b.refused_bytes = bytes;
    b.held_then = b.held;
    b.refused_call = call;
    return false;
}

void keep(void* p, unsigned long long bytes) {
    Budget& b = budget();
    std::lock_guard<std::mutex> lock(b.m);
    b.sizes[p] = bytes;
    b.held += bytes;
}

void drop(void* p) {
    Budget& b = budget();
    std::lock_guard<std::mutex> lock(b.m);
    const auto it = b.sizes.find(p);
    if (it == b.sizes.end()) return;
    b.held -= it->second;
    b.sizes.erase(it);
}

/// An allocation of `bytes` by `call` within the budget: refused past it,
/// else `allocate()` (the runtime's call) and, when it succeeds, the bytes
/// counted as held at *p.
template <class Allocate>
cudaError_t admitted(void** p, unsigned long long bytes, const char* call, Allocate allocate) {
    if (!admit(bytes, call)) return cudaErrorMemoryAllocation;
    const cudaError_t e = allocate();
    if (e == cudaSuccess) keep(*p, bytes);
    return e;
}

/// A free through the runtime's call `release()`; what *p held is released on success.
template <class Release>
cudaError_t released(void* p, Release release) {
    const cudaError_t e = release();
    if (e == cudaSuccess) drop(p);
    return e;
}

/// "name<TAB>text" of `e` into `message`; returns e as an int (0: none).
int describe_error(cudaError_t e, char* message, int capacity) {
    if (e != cudaSuccess)
        std::snprintf(message, static_cast<size_t>(capacity), "%s\t%s", cudaGetErrorName(e), cudaGetErrorString(e));
    return static_cast<int>(e);
}

}  // namespace cr_entry

// The wrapped allocation calls (the build links the student's objects with
// ld --wrap=cudaMalloc,...: their calls arrive here, __real_ is the runtime's).
extern "C" {
cudaError_t __real_cudaMalloc(void** p, size_t bytes);
cudaError_t __real_cudaMallocManaged(void** p, size_t bytes, unsigned int flags);
cudaError_t __real_cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height);
cudaError_t __real_cudaMallocAsync(void** p, size_t bytes, cudaStream_t stream);
cudaError_t __real_cudaFree(void* p);
cudaError_t __real_cudaFreeAsync(void* p, cudaStream_t stream);

cudaError_t __wrap_cudaMalloc(void** p, size_t bytes) {
    return cr_entry::admitted(p, bytes, "cudaMalloc", [&] { return __real_cudaMalloc(p, bytes); });
}

cudaError_t __wrap_cudaMallocManaged(void** p, size_t bytes, unsigned int flags) {
    return cr_entry::admitted(p, bytes, "cudaMallocManaged",
                              [&] { return __real_cudaMallocManaged(p, bytes, flags); });
}

cudaError_t __wrap_cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
    // admitted on the rows asked for; held is the pitched rows, known only after the call
    if (!cr_entry::admit(static_cast<unsigned long long>(width) * height, "cudaMallocPitch"))
        return cudaErrorMemoryAllocation;
    const cudaError_t e = __real_cudaMallocPitch(p, pitch, width, height);
    if (e == cudaSuccess) cr_entry::keep(*p, static_cast<unsigned long long>(*pitch) * height);
    return e;
}

cudaError_t __wrap_cudaMallocAsync(void** p, size_t bytes, cudaStream_t stream) {
    return cr_entry::admitted(p, bytes, "cudaMallocAsync",
                              [&] { return __real_cudaMallocAsync(p, bytes, stream); });
}

cudaError_t __wrap_cudaFree(void* p) {
    return cr_entry::released(p, [&] { return __real_cudaFree(p); });
}

cudaError_t __wrap_cudaFreeAsync(void* p, cudaStream_t stream) {
    return cr_entry::released(p, [&] { return __real_cudaFreeAsync(p, stream); });
}
}

extern "C" void cr_student_budget(unsigned long long bytes) {
    cr_entry::Budget& b = cr_entry::budget();
    std::lock_guard<std::mutex> lock(b.m);
    b.limit = bytes;
}

// 1 with the sentence when an allocation was refused since the last ask.
extern "C" int cr_student_budget_refused(char* message, int capacity) {
    cr_entry::Budget& b = cr_entry::budget();
    std::lock_guard<std::mutex> lock(b.m);
    if (!b.refused) return 0;
    b.refused = false;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    std::snprintf(message, static_cast<size_t>(capacity),
                  "your renderer asked for more than %.4g GiB of device memory: %s of %.2f GiB while holding %.2f GiB "
                  "was refused (the harness's budget for your renderer; --student-memory GIB sets it)",
                  b.limit / gib, b.refused_call, b.refused_bytes / gib, b.held_then / gib);
    return 1;
}

// The course's scene loader, in both years' forms (the student's
// sceneLoader.h declares one of them).
void loadCircleScene(SceneName sceneName, int& numCircles, float*& position, float*& velocity, float*& color,
                     float*& radius, int seed) {
    cr_entry::load_circles(static_cast<int>(sceneName), seed, numCircles, position, velocity, color, radius);
}

void loadCircleScene(SceneName sceneName, int& numCircles, float*& position, float*& velocity, float*& color,
                     float*& radius) {
    cr_entry::load_circles(static_cast<int>(sceneName), -1, numCircles, position, velocity, color, radius);
}

// The course's PPM writer: binary P6, top row first, each channel
// (char)(255 * clamp(v, 0, 1)); read through the student's Image.
void writePPMImage(const Image* image, const char* filename) {
    FILE* f = std::fopen(filename, "wb");
    if (!f) {
        std::fprintf(stderr, "writePPMImage: cannot write %s\n", filename);
        return;
    }
    std::fprintf(f, "P6\n%d %d\n255\n", image->width, image->height);
    for (int j = image->height - 1; j >= 0; --j)
        for (int i = 0; i < image->width; ++i) {
            const float* p = image->data + 4 * (j * image->width + i);
            for (int c = 0; c < 3; ++c) {
                const float v = p[c] < 0.f ? 0.f : (p[c] > 1.f ? 1.f : p[c]);
                std::fputc(static_cast<char>(255.f * v), f);
            }
        }
    std::fclose(f);
    std::printf("Wrote image file %s\n", filename);
}

extern "C" void* cr_student_create() { return new CudaRenderer(); }
extern "C" void cr_student_destroy(void* r) { delete static_cast<CudaRenderer*>(r); }
extern "C" void cr_student_alloc(void* r, int width, int height) { cr_entry::renderer(r).allocOutputImage(width, height); }
extern "C" void cr_student_load(void* r, int scene, int seed) {
    cr_entry::load_scene(cr_entry::renderer(r), static_cast<SceneName>(scene), seed, 0);
}
extern "C" void cr_student_setup(void* r) { cr_entry::renderer(r).setup(); }
extern "C" void cr_student_clear(void* r) { cr_entry::renderer(r).clearImage(); }
extern "C" void cr_student_advance(void* r) { cr_entry::renderer(r).advanceAnimation(); }
extern "C" void cr_student_render(void* r) { cr_entry::renderer(r).render(); }

extern "C" int cr_student_image(void* r, int* width, int* height, const float** data) {
    const Image* img = cr_entry::renderer(r).getImage();
    if (!img) return 1;
    *width = img->width;
    *height = img->height;
    *data = img->data;
    return 0;
}

extern "C" int cr_student_sync(char* message, int capacity) {
    cudaError_t e = cudaDeviceSynchronize();
    const cudaError_t last = cudaGetLastError();
    if (e == cudaSuccess) e = last;
    return cr_entry::describe_error(e, message, capacity);
}

extern "C" int cr_student_peek_error(char* message, int capacity) {
    cudaError_t e = cudaPeekAtLastError();
    if (e == cudaSuccess) e = cudaStreamQuery(0);  // a sticky error shows here; a busy stream is not one
    if (e == cudaErrorNotReady) e = cudaSuccess;
    return cr_entry::describe_error(e, message, capacity);
}

extern "C" void cr_student_profiler(int on) {
    cudaDeviceSynchronize();
    if (on) cudaProfilerStart();
    else cudaProfilerStop();
}
