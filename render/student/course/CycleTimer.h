// circle-renderer's version of the course framework's CycleTimer.h: a
// monotonic clock in seconds (and the older course years' tick API, where a
// tick is one nanosecond of std::chrono::steady_clock).
#ifndef _SYRAH_CYCLE_TIMER_H_
#define _SYRAH_CYCLE_TIMER_H_

#include <chrono>

class CycleTimer {
public:
    typedef unsigned long long SysClock;

    /// Seconds since an arbitrary fixed point, monotonic.
    static double currentSeconds() {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    /// Nanosecond ticks of the same clock.
    static SysClock currentTicks() {
        return static_cast<SysClock>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
                .count());
    }
    static double secondsPerTick() { return 1e-9; }
    static double ticksPerSecond() { return 1e9; }
    static double msPerTick() { return 1e-6; }

private:
    CycleTimer();
};

#endif
