// Pieces of an automated (--frames) run and the rate the panel shows: the
// checks against cpuref, the summary printed at the end, the window
// screenshot, the window-size cycle of --resize-every.
#pragma once

#include <chrono>
#include <string>

#include "app_options.h"
#include "panel.h"
#include "session.h"

struct GLFWwindow;

namespace cr::app {

using Clock = std::chrono::steady_clock;

/// Seconds from a to b.
double seconds_between(Clock::time_point a, Clock::time_point b);

/// Reads the whole back buffer and writes it as an RGB PNG (rows flipped:
/// GL's first row is the bottom one). Throws cr::FileError.
void save_window_png(const std::string& path, int fb_w, int fb_h);

/// Prints the summary of a --frames run to stdout (flushed), with the
/// panel's own figures (its frame rate, whether its content fit the window)
/// so that a test can hold the screenshot to them.
void print_summary(const Session& s, int frames, double seconds, const ViewState& v);

/// --resize-every: step `step` (0, 1, ...) resizes the window to the next
/// size of kResizeCycle; after the cycle's end, back to the initial size.
void resize_to_next(GLFWwindow* window, const AppOptions& opt, int step);

/// The --check runs of an automated (--frames) session: the first frame at
/// every render size and the last frame are compared with cpuref.
class AutoChecks {
public:
    /// Call after each rendered frame; checks it when the render size is new
    /// or `last` is set, and prints one line per check to stdout (frame
    /// numbered from 0, as on the panel and in `render -b`).
    void after_frame(Session& s, bool last);
    /// Prints the total; returns true when every check passed (and one ran).
    bool report() const;

private:
    int width_ = -1, height_ = -1;
    int done_ = 0, failed_ = 0;
};

/// Rendered frames per second as the panel shows it: the rate over the
/// last completed half second, and before the first half second has passed
/// the mean since the start (so a short run never shows 0).
class RateMeter {
public:
    explicit RateMeter(Clock::time_point start) : start_(start), window_start_(start) {}
    /// Counts one rendered frame at `now`.
    void frame_rendered(Clock::time_point now);
    /// The rate to show at `now`.
    double rate(Clock::time_point now) const;

private:
    Clock::time_point start_, window_start_;
    int frames_ = 0, window_frames_ = 0;
    double window_rate_ = 0;
    bool have_window_ = false;
};

}  // namespace cr::app
