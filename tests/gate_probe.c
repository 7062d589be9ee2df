/* For the GatedRun tests: prints "start", then loads the CUDA driver by the
 * name the CUDA runtime uses (libcuda.so.1; absent on a machine without a
 * GPU, which does not matter here), then creates the file named by argv[1]
 * and prints "past the driver load"; then writes "P6\n" and "xyz" into each
 * file named after it, as the course's PPM writer does (fprintf, then fputc
 * a byte at a time), and prints "NAME: N bytes" with the stream's position
 * before it is closed (bytes the gate library drops do not move it).
 *
 * `gate_probe --fake-ref ARGS...` stands in for the course's render_ref in
 * the grade's tests: it loads the driver (so the gate holds it), appends
 * ARGS to the file $CR_FAKE_REF_LOG once let on (a run killed at its gate
 * logs nothing), and prints "Total:    T ms", T from $CR_FAKE_REF_TOTALS
 * ("pattern=3.0,*=100": the first scene named in ARGS, else "*"). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fake_ref(int argc, char** argv) {
    dlopen("libcuda.so.1", RTLD_NOW);
    const char* log = getenv("CR_FAKE_REF_LOG");
    FILE* f = log ? fopen(log, "a") : NULL;
    for (int i = 2; f && i < argc; ++i) fprintf(f, "%s%s", argv[i], i + 1 < argc ? " " : "\n");
    if (f) fclose(f);
    const char* totals = getenv("CR_FAKE_REF_TOTALS");
    double t = 1.0, fallback = 1.0;
    int found = 0;
    char item[128];
    for (const char* p = totals ? totals : ""; *p;) {
        size_t n = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        char* eq = strchr(item, '=');
        if (eq) {
            *eq = 0;
            if (!strcmp(item, "*")) fallback = atof(eq + 1);
            for (int i = 2; i < argc && !found; ++i)
                if (!strcmp(argv[i], item)) found = 1, t = atof(eq + 1);
        }
        p += n + (p[n] == ',');
    }
    printf("Total:    %.4f ms\n", found ? t : fallback);
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && !strcmp(argv[1], "--fake-ref")) return fake_ref(argc, argv);
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
        printf("%s: %ld bytes\n", argv[i], ftell(f));
        fclose(f);
    }
    return 0;
}
