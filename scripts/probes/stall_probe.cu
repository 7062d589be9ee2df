// An experiment for issue 29 (not part of the build): how long a bystander
// process's GPU work stalls while another process on the same GPU faults
// (CUDA error 700), hangs in a kernel, or is killed. The workbench's window
// is such a bystander of the student's worker (docs/GUI.md, "Errors never
// close the window"). Modes:
//   stall_probe bystander SECONDS  a tiny kernel + sync every 2 ms; prints each gap
//                                   between two iterations over 20 ms, with the
//                                   wall-clock time it ended (CLOCK_REALTIME, s)
//   stall_probe fault exit|reset|wait
//                                   an out-of-bounds write (error 700), then: return
//                                   from main; cudaDeviceReset() and return; or sleep
//                                   until killed
//   stall_probe hang                a kernel that never ends, then sleep until killed
// Each mode prints when its events happened, on the same clock.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

static double now_s() {
    timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__global__ void touch(float* p, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1.f;
}

__global__ void write_far(int* p) { p[-(1 << 28)] = 1; }  // far below the allocation: unmapped

__global__ void spin(volatile int* flag) {
    while (*flag == 0) {}
}

static int bystander(double seconds) {
    const int n = 1 << 18;
    float* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(float)) != cudaSuccess) return 2;
    const double start = now_s();
    double last = start, worst = 0;
    long iterations = 0;
    while (now_s() - start < seconds) {
        touch<<<(n + 255) / 256, 256>>>(p, n);
        const cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            std::printf("bystander: CUDA error %d at %.3f\n", static_cast<int>(e), now_s());
            return 3;
        }
        const double t = now_s();
        if (t - last > 0.020) std::printf("bystander: gap %.1f ms ending at %.3f\n", (t - last) * 1e3, t);
        if (t - last > worst) worst = t - last;
        last = t;
        ++iterations;
        usleep(2000);
        last = now_s();
    }
    std::printf("bystander: %ld iterations, longest gap %.1f ms\n", iterations, worst * 1e3);
    return 0;
}

int main(int argc, char** argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const char* mode = argc > 1 ? argv[1] : "";
    if (!std::strcmp(mode, "bystander")) return bystander(argc > 2 ? std::atof(argv[2]) : 10);
    int* d = nullptr;
    if (cudaMalloc(&d, 1 << 20) != cudaSuccess) return 2;
    cudaMemset(d, 0, 1 << 20);
    cudaDeviceSynchronize();
    if (!std::strcmp(mode, "fault")) {
        const char* after = argc > 2 ? argv[2] : "exit";
        std::printf("fault: launching at %.3f\n", now_s());
        write_far<<<1, 1>>>(d);
        const cudaError_t e = cudaDeviceSynchronize();
        std::printf("fault: error %d (%s) seen at %.3f\n", static_cast<int>(e), cudaGetErrorString(e), now_s());
        if (!std::strcmp(after, "reset")) {
            cudaDeviceReset();
            std::printf("fault: reset done at %.3f\n", now_s());
        }
        if (!std::strcmp(after, "wait")) for (;;) pause();
        std::printf("fault: exiting at %.3f\n", now_s());
        return 0;
    }
    if (!std::strcmp(mode, "hang")) {
        std::printf("hang: launching at %.3f\n", now_s());
        spin<<<1, 1>>>(d);
        for (;;) pause();
    }
    std::fprintf(stderr, "usage: stall_probe bystander SECONDS | fault exit|reset|wait | hang\n");
    return 2;
}
