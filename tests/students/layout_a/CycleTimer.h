// Fixture framework header in the style of the older course years
// (circle-renderer's tests, not course code): the tick API beside seconds.
#ifndef FIXTURE_CYCLE_TIMER_H
#define FIXTURE_CYCLE_TIMER_H

#include <time.h>

class CycleTimer {
public:
    typedef unsigned long long SysClock;
    static SysClock currentTicks() {
        timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (SysClock)t.tv_sec * 1000000000ull + (SysClock)t.tv_nsec;
    }
    static double secondsPerTick() { return 1e-9; }
    static double currentSeconds() { return currentTicks() * secondsPerTick(); }
};

#endif
