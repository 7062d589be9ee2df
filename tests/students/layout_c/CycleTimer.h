// Fixture framework header (circle-renderer's tests, not course code).
#ifndef FIXTURE_CYCLE_TIMER_H
#define FIXTURE_CYCLE_TIMER_H

#include <chrono>

class CycleTimer {
public:
    static double currentSeconds() {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
};

#endif
