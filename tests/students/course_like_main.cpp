// A course-like main loop (written for circle-renderer; not the course's code)
// that links a student's renderer directly, without the harness, and times
// it the course's way: frames 0..END-1; for frames >= START each call is
// followed by cudaDeviceSynchronize() and timed with the host clock; prints
// Clear/Advance/Render/Total in ms per frame. Used to check that the harness
// adds nothing to a student's time (docs/STUDENTS.md).
//   course_like_main SCENE SIZE START:END [SEED]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "CycleTimer.h"
#include "circleRenderer.h"
#include "cudaRenderer.h"
#include "render/student/protocol.h"

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: course_like_main SCENE SIZE START:END [SEED]\n");
        return 2;
    }
    int scene = -1;
    for (int v = 0; v < 14; v++)
        if (cr::student::course_scene_name(v) == argv[1]) scene = v;
    const int size = std::atoi(argv[2]);
    int start = 0, end = 1;
    if (scene < 0 || size < 1 || std::sscanf(argv[3], "%d:%d", &start, &end) != 2 || start < 0 || end <= start) {
        std::fprintf(stderr, "course_like_main: bad arguments\n");
        return 2;
    }
    CudaRenderer r;
    r.allocOutputImage(size, size);
    r.loadScene(static_cast<SceneName>(scene), argc > 4 ? std::atoi(argv[4]) : 0);
    r.setup();
    double clear = 0, advance = 0, render = 0;
    for (int f = 0; f < end; f++) {
        const double t0 = CycleTimer::currentSeconds();
        r.clearImage();
        cudaDeviceSynchronize();
        const double t1 = CycleTimer::currentSeconds();
        r.advanceAnimation();
        cudaDeviceSynchronize();
        const double t2 = CycleTimer::currentSeconds();
        r.render();
        cudaDeviceSynchronize();
        const double t3 = CycleTimer::currentSeconds();
        if (f < start) continue;
        clear += t1 - t0;
        advance += t2 - t1;
        render += t3 - t2;
    }
    const double n = end - start;
    std::printf("Clear:    %.4f ms\nAdvance:  %.4f ms\nRender:   %.4f ms\nTotal:    %.4f ms\n", 1000 * clear / n,
                1000 * advance / n, 1000 * render / n, 1000 * (clear + advance + render) / n);
    return 0;
}
