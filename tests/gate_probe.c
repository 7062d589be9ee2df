/* For the GatedRun tests: prints "start", then loads the CUDA driver by the
 * name the CUDA runtime uses (libcuda.so.1; absent on a machine without a
 * GPU, which does not matter here), then creates the file named by argv[1]
 * and prints "past the driver load"; then writes "P6\n" and "xyz" into each
 * file named after it, as the course's PPM writer does (fprintf, then fputc
 * a byte at a time). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
    printf("start\n");
    fflush(stdout);
    dlopen("libcuda.so.1", RTLD_NOW);
    if (argc > 1) {
        FILE* f = fopen(argv[1], "w");
        if (f) fclose(f);
    }
    printf("past the driver load\n");
    for (int i = 2; i < argc; ++i) {
        FILE* f = fopen(argv[i], "wb");
        if (!f) return 3;
        fprintf(f, "P6\n");
        for (const char* c = "xyz"; *c; ++c) fputc(*c, f);
        fclose(f);
    }
    return 0;
}
