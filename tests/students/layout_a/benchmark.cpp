// Fixture stand-in for an older course year's benchmark.cpp (circle-renderer's
// tests, not course code): built by the folder's Makefile, replaced by the
// harness. Like that year's benchmark, its loop (below the #error, never
// compiled) reads the clock as each call returns, with no synchronization:
// the harness times a layout-A folder's calls so (BenchmarkTiming).
#error "the harness compiled the folder's benchmark.cpp, which it replaces"

static double fixture_time_frame(CircleRenderer* r) {
    const double t0 = CycleTimer::currentSeconds();
    r->clearImage();
    r->advanceAnimation();
    r->render();
    return CycleTimer::currentSeconds() - t0;
}
