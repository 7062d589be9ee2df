/* libcr_cuda_gate.so: holds a program back at the moment it first loads the
 * CUDA driver, until its parent lets it on. Preloaded (LD_PRELOAD) into the
 * course's render_ref by `render grade`, so that the next timing run's
 * start-up (exec, the dynamic loader, the scene generated on the CPU) runs
 * while the previous run still uses the GPU, and its GPU work (context,
 * setup, timed frames) starts only once that run has exited: timing runs
 * never share the GPU.
 *
 * The CUDA runtime, static or shared, loads libcuda.so.1 with dlopen() on its
 * first call; that call is the gate. With CR_CUDA_GATE=1 in the environment
 * the program's fd 4 gets one byte 'W' (at the gate), then the program reads
 * one byte from fd 3 (the parent's go) and both fds are closed. Without
 * CR_CUDA_GATE, or at any later dlopen, it is a plain dlopen. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t cr_gate_once = PTHREAD_ONCE_INIT; /* a second thread's dlopen waits too */

static void cr_wait_at_gate(void) {
    const char* on = getenv("CR_CUDA_GATE");
    if (!on || strcmp(on, "1") != 0) return;
    const char w = 'W';
    char go = 0;
    ssize_t n;
    do n = write(4, &w, 1); while (n < 0 && errno == EINTR);
    do n = read(3, &go, 1); while (n < 0 && errno == EINTR);
    close(3);
    close(4);
}

void* dlopen(const char* file, int mode) {
    static void* (*real_dlopen)(const char*, int);
    if (!real_dlopen) real_dlopen = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
    if (file && strstr(file, "libcuda.so")) pthread_once(&cr_gate_once, cr_wait_at_gate);
    return real_dlopen(file, mode);
}
