// The course's frame loop, shared by `render`, `render bench` and the GUI.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "render/core/renderer.h"

namespace cr {

/// Frames [start, end): frames 0..start-1 are rendered but not counted (as
/// the course's -b START:END), frames start..end-1 are counted.
struct FrameRange {
    int start = 0;
    int end = 1;
};

/// Parses "START:END" (0 <= START < END <= 1000000) or a single "N" (= N:N+1).
/// Throws std::invalid_argument naming the bad text.
FrameRange parse_frame_range(const std::string& text);

/// Mean per-stage times over the counted frames, in ms, in stage order, and
/// the course's four lines.
struct FrameTimes {
    std::vector<StageTime> stages;  ///< mean of each stage over counted frames
    double clear_ms = 0, advance_ms = 0, render_ms = 0, total_ms = 0;
    int counted = 0;
};

/// Adds one frame's stage times to running sums (stages matched by name).
void accumulate(FrameTimes& sum, const std::vector<StageTime>& frame);
/// Divides sums by the counted frames.
FrameTimes mean_of(const FrameTimes& sum);

/// Renders the next frame on `r` (clear, advance, render) and returns its
/// stage times (waiting for a GPU renderer's frame to finish).
std::vector<StageTime> render_next_frame(Renderer& r);

/// Sets `r` up with `scene` at width x height and advances it so that the
/// next render_next_frame draws frame `frames` - 1 with the same circles as
/// rendering frames 0..frames-1 would (frames <= 1: just the setup). An image
/// depends only on the circles of its frame, never on earlier images.
void setup_at_frame(Renderer& r, const Scene& scene, int width, int height, int frames);

/// Sets `r` up with `scene` at width x height, renders frames 0..frames-1
/// (clear, advance, render; untimed) and returns the last image.
const Image& render_frames(Renderer& r, const Scene& scene, int width, int height, int frames);

/// The same image as render_frames, faster for references: setup_at_frame,
/// then the last frame is cleared, advanced and rendered once. frames <= 0 renders the
/// scene's start circles, not advanced at all (what a renderer shows right
/// after setup); r.frame() is then 0.
const Image& render_last_frame(Renderer& r, const Scene& scene, int width, int height, int frames);

/// How the counted frames' stages are timed.
enum class TimingMethod {
    Events,  ///< the renderer's own: cudaEvents per stage on the GPU, the host clock on the CPU
    Course,  ///< the course's: the host clock around clear(), advance(), render(), each followed by a sync
};

/// Parses "events" or "course". Throws std::invalid_argument naming the text.
TimingMethod parse_timing_method(const std::string& text);

/// One line saying how `r`'s times were taken with `m` (for reports).
std::string timing_method_text(TimingMethod m, const Renderer& r);

/// Runs the frame loop on `r` (already set up): a warm-up (clear + render,
/// no advance, not counted, so the animation is unchanged), then for each
/// frame 0..end-1: clear, advance, render; counted frames call on_frame.
/// `before_counted` runs just before the first counted frame (render
/// profile starts the profiler there).
FrameTimes run_frames(Renderer& r, FrameRange range, const std::function<void(int frame)>& on_frame = {},
                      TimingMethod method = TimingMethod::Events, const std::function<void()>& before_counted = {});

/// One timing run the course's way (COURSE_INTERFACE.md, "The course's
/// grading"): as a fresh process of the course's binary with `-b START:END
/// -f PREFIX` runs it. r.cold_start(), setup(scene, width, height), then
/// frames 0..end-1 with no warm-up: clear, advance and render, each followed
/// by a sync and timed with the host clock; after each counted frame the
/// image is read back and written to PREFIX_%04d.ppm, outside the timed part
/// (`ppm_prefix` "" writes nothing). A renderer in a process of its own (the
/// student's worker: Renderer::course_frame) runs the three calls back to back
/// and writes the file itself, as the course's process does; the others are
/// timed and written here. With `file_after_last` false the last frame's
/// file is not written: it follows the timed part, so only the gaps between
/// timed frames (which the files make, as the course's do) shape the times,
/// and `render grade` waits 70 ms less a run (a 1024x1024 file written byte
/// by byte on the H200's host). Returns the means over the counted frames,
/// in ms (Total = Clear + Advance + Render).
FrameTimes run_course_process(Renderer& r, const Scene& scene, int width, int height, FrameRange range,
                              const std::string& ppm_prefix, bool file_after_last = true);

/// The outcome of rerender_compare.
struct RepeatCheck {
    int runs = 1;                         ///< renders compared, the first included
    int differing_runs = 0;               ///< renders whose image differs from the first
    long long most_pixels_differing = 0;  ///< the most pixels (any bit of R, G, B, A) one of them differs in
};

/// Renders the current frame again, runs - 1 times (clear and render, no
/// advance: the same circles), and compares each image bit for bit with
/// `first`. An ordered, atomic renderer gives the same image every time; a
/// racy one can pass a single check by luck, but rarely draws the same
/// picture twice.
RepeatCheck rerender_compare(Renderer& r, const Image& first, int runs);

}  // namespace cr
