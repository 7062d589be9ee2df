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
 * CR_CUDA_GATE, or at any later dlopen, it is a plain dlopen.
 *
 * With CR_SKIP_FILE=NAME, a file the program opens with fopen under exactly
 * that name is opened on /dev/null instead, and the bytes it writes there
 * one at a time with fputc are dropped without a call into the C library.
 * `render grade` names the last frame's PPM file: the course's program
 * writes it after its last timed frame (3 MB, a byte at a time, about 75 ms
 * on the H200's host), where it shapes no gap between timed frames. Every
 * other file is opened and written as the program asks; its bytes pass
 * through one more function call each (3 MB with fputc: 9.6 ms plain, 10.7 ms
 * with this library preloaded, on the 2-core development machine: about 1 ms
 * more a file, of the course's 75 ms gap between two timed frames). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
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

static FILE* cr_skipped_file; /* the open CR_SKIP_FILE stream, or NULL */

static FILE* cr_open(FILE* (*real_open)(const char*, const char*), const char* path, const char* mode) {
    const char* skip = getenv("CR_SKIP_FILE");
    if (!skip || !*skip || !path || strcmp(path, skip) != 0) return real_open(path, mode);
    FILE* f = real_open("/dev/null", mode);
    cr_skipped_file = f;
    return f;
}

FILE* fopen(const char* path, const char* mode) {
    static FILE* (*real_fopen)(const char*, const char*);
    if (!real_fopen) real_fopen = (FILE * (*)(const char*, const char*)) dlsym(RTLD_NEXT, "fopen");
    return cr_open(real_fopen, path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
    static FILE* (*real_fopen64)(const char*, const char*);
    if (!real_fopen64) real_fopen64 = (FILE * (*)(const char*, const char*)) dlsym(RTLD_NEXT, "fopen64");
    return cr_open(real_fopen64, path, mode);
}

int fputc(int c, FILE* f) {
    static int (*real_fputc)(int, FILE*);
    if (f && f == cr_skipped_file) return (unsigned char)c;
    if (!real_fputc) real_fputc = (int (*)(int, FILE*))dlsym(RTLD_NEXT, "fputc");
    return real_fputc(c, f);
}

int fclose(FILE* f) {
    static int (*real_fclose)(FILE*);
    if (!real_fclose) real_fclose = (int (*)(FILE*))dlsym(RTLD_NEXT, "fclose");
    if (f && f == cr_skipped_file) cr_skipped_file = NULL;
    return real_fclose(f);
}
