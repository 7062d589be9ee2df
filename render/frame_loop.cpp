#include "render/frame_loop.h"

#include "render/core/numbers.h"
#include "render/image_io.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace cr {

FrameRange parse_frame_range(const std::string& text) {
    const auto colon = text.find(':');
    long long a = 0, b = 0;
    bool ok;
    if (colon == std::string::npos) {
        ok = parse_integer(text, 0, 999999999, a);
        b = a + 1;
    } else {
        ok = parse_integer(text.substr(0, colon), 0, 999999999, a) &&
             parse_integer(text.substr(colon + 1), 0, 999999999, b);
    }
    if (!ok || a < 0 || b <= a || b > 1000000)
        throw std::invalid_argument("bad frame range '" + text +
                                    "': use START:END with 0 <= START < END <= 1000000");
    return FrameRange{static_cast<int>(a), static_cast<int>(b)};
}

void accumulate(FrameTimes& sum, const std::vector<StageTime>& frame) {
    for (const auto& st : frame) {
        bool found = false;
        for (auto& s : sum.stages)
            if (s.name == st.name) {
                s.ms += st.ms;
                found = true;
            }
        if (!found) sum.stages.push_back(st);
        if (st.course == "Clear") sum.clear_ms += st.ms;
        if (st.course == "Advance") sum.advance_ms += st.ms;
        if (st.course == "Render") sum.render_ms += st.ms;
    }
    sum.counted += 1;
}

FrameTimes mean_of(const FrameTimes& sum) {
    FrameTimes m = sum;
    if (sum.counted == 0) return m;
    const double n = sum.counted;
    for (auto& s : m.stages) s.ms /= n;
    m.clear_ms /= n;
    m.advance_ms /= n;
    m.render_ms /= n;
    m.total_ms = m.clear_ms + m.advance_ms + m.render_ms;
    return m;
}

std::vector<StageTime> render_next_frame(Renderer& r) {
    r.clear();
    r.advance();
    r.render();
    return r.timings();
}

void setup_at_frame(Renderer& r, const Scene& scene, int width, int height, int frames) {
    r.setup(scene, width, height);
    for (int f = 0; f + 1 < frames; ++f) r.advance();
}

const Image& render_frames(Renderer& r, const Scene& scene, int width, int height, int frames) {
    r.setup(scene, width, height);
    for (int f = 0; f < frames; ++f) {
        r.clear();
        r.advance();
        r.render();
    }
    return r.image();
}

const Image& render_last_frame(Renderer& r, const Scene& scene, int width, int height, int frames) {
    setup_at_frame(r, scene, width, height, frames);
    r.clear();
    if (frames > 0) r.advance();
    r.render();
    return r.image();
}

TimingMethod parse_timing_method(const std::string& text) {
    if (text == "events") return TimingMethod::Events;
    if (text == "course") return TimingMethod::Course;
    throw std::invalid_argument("bad --timing '" + text + "': use events or course");
}

std::string timing_method_text(TimingMethod m, const Renderer& r) {
    if (m == TimingMethod::Course || r.course_timing())
        return "the course's method: host clock around each call, each followed by cudaDeviceSynchronize()";
    if (r.gpu_image().pixels)
        return "cudaEvents around each stage on the GPU's stream (a stage that queues no GPU work, the deferred clear or "
               "a static scene's advance, counts 0)";
    return "host clock around each stage (the CPU renderers run synchronously)";
}

namespace {

/// The course's timing: host clock around each call, then a sync.
std::vector<StageTime> render_next_frame_course(Renderer& r) {
    if (r.course_timing()) return render_next_frame(r);  // it measures exactly that itself
    using clock = std::chrono::steady_clock;
    auto ms = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    const auto t0 = clock::now();
    r.clear();
    r.synchronize();
    const auto t1 = clock::now();
    r.advance();
    r.synchronize();
    const auto t2 = clock::now();
    r.render();
    r.synchronize();
    const auto t3 = clock::now();
    return {{"clear", "Clear", ms(t0, t1)}, {"advance", "Advance", ms(t1, t2)}, {"render", "Render", ms(t2, t3)}};
}

}  // namespace

FrameTimes run_frames(Renderer& r, FrameRange range, const std::function<void(int)>& on_frame, TimingMethod method,
                      const std::function<void()>& before_counted) {
    r.clear();  // warm-up: loads kernels, touches buffers; no advance
    r.render();
    r.timings();
    FrameTimes sum;
    for (int f = 0; f < range.end; ++f) {
        if (f < range.start) {  // not counted: no need to wait for its times
            r.clear();
            r.advance();
            r.render();
            continue;
        }
        if (f == range.start && before_counted) before_counted();
        accumulate(sum, method == TimingMethod::Course ? render_next_frame_course(r) : render_next_frame(r));
        if (on_frame) on_frame(f);
    }
    return mean_of(sum);
}

FrameTimes run_course_process(Renderer& r, const Scene& scene, int width, int height, FrameRange range,
                              const std::string& ppm_prefix, bool file_after_last) {
    r.cold_start();
    r.setup(scene, width, height);
    FrameTimes sum;
    for (int f = 0; f < range.end; ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "_%04d.ppm", f);
        const bool skip = ppm_prefix.empty() || f < range.start || (!file_after_last && f + 1 == range.end);
        const std::string ppm = skip ? "" : ppm_prefix + name;
        // a renderer in its own process runs the frame and writes the file there, as the course's binary does
        std::optional<std::vector<StageTime>> t = r.course_frame(ppm);
        if (!t) {
            t = render_next_frame_course(r);
            if (!ppm.empty()) write_image(r.image(), ppm, ImageFormat::Ppm);
        }
        if (f >= range.start) accumulate(sum, *t);
    }
    return mean_of(sum);
}

RepeatCheck rerender_compare(Renderer& r, const Image& first, int runs) {
    const Image kept = first;  // `first` may be the renderer's own buffer
    RepeatCheck rc;
    rc.runs = runs;
    for (int k = 1; k < runs; ++k) {
        r.clear();
        r.render();
        const Image& again = r.image();
        long long differ = 0;
        const size_t n = std::min(again.data.size(), kept.data.size());
        for (size_t p = 0; p + 3 < n; p += 4)
            differ += std::memcmp(&again.data[p], &kept.data[p], 4 * sizeof(float)) != 0;
        if (again.width != kept.width || again.height != kept.height) differ = static_cast<long long>(kept.pixel_count());
        if (differ) ++rc.differing_runs;
        rc.most_pixels_differing = std::max(rc.most_pixels_differing, differ);
    }
    return rc;
}

}  // namespace cr
