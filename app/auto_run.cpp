#include "auto_run.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>

#include "render/image_io.h"

namespace cr::app {

double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

void save_window_png(const std::string& path, int fb_w, int fb_h) {
    std::vector<uint8_t> px(static_cast<size_t>(fb_w) * fb_h * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, fb_w, fb_h, GL_RGB, GL_UNSIGNED_BYTE, px.data());
    std::vector<uint8_t> flipped(px.size());
    const size_t row = static_cast<size_t>(fb_w) * 3;
    for (int y = 0; y < fb_h; ++y)
        std::copy_n(&px[static_cast<size_t>(fb_h - 1 - y) * row], row, &flipped[static_cast<size_t>(y) * row]);
    write_png_bytes(path, fb_w, fb_h, 3, flipped.data());
}

void print_summary(const Session& s, int frames, double seconds, const ViewState& v) {
    const FrameTimes m = mean_of(s.stage_sums());
    std::printf("circle-renderer: %d frames of %s at %dx%d with %s in %.3f s: %.1f FPS\n", frames,
                s.scene_choice().from_file ? s.scene_choice().path.c_str() : s.scene_choice().name.c_str(),
                s.width(), s.height(), s.renderer_name().c_str(), seconds,
                seconds > 0 ? frames / seconds : 0.0);
    std::printf("  %-20s %-8s %10s\n", "stage", "course", "mean ms");
    for (const auto& st : m.stages)
        std::printf("  %-20s %-8s %10.3f\n", st.name.c_str(), st.course.empty() ? "-" : st.course.c_str(), st.ms);
    std::printf("  Clear %.3f ms  Advance %.3f ms  Render %.3f ms  Total %.3f ms (mean of %d frames)\n",
                m.clear_ms, m.advance_ms, m.render_ms, m.total_ms, m.counted);
    std::printf("  panel: %.1f frames/s rendered; content %s the window (%.0f of %.0f px high); image drawn %s\n",
                v.render_fps, v.panel_content_height <= v.panel_height ? "fits" : "is cut off by",
                v.panel_content_height, v.panel_height, drawn_scale_label(v.drawn_scale, v.zoom.zoom != 1).c_str());
    if (v.show_tiles)
        std::printf("  overlay: tiles, %s, busiest tile %d circles\n", v.tiles_note.c_str(), v.tile_max);
    if (v.show_tiles && !v.tile_totals.empty()) std::printf("  overlay: %s\n", v.tile_totals.c_str());
    if (v.show_diff && s.check().valid)
        std::printf("  overlay: diff of frame %d vs cpuref, %s\n", std::max(s.check().frame - 1, 0),
                    s.check().stats.pass ? "PASS" : "FAIL");
    std::fflush(stdout);
}

void resize_to_next(GLFWwindow* window, const AppOptions& opt, int step) {
    constexpr int n = static_cast<int>(std::size(kResizeCycle));
    const int i = step % (n + 1);
    const int w = i < n ? kResizeCycle[i][0] : opt.window_width;
    const int h = i < n ? kResizeCycle[i][1] : opt.window_height;
    glfwSetWindowSize(window, w, h);
}

void AutoChecks::after_frame(Session& s, bool last) {
    const bool new_size = s.width() != width_ || s.height() != height_;
    if (!new_size && !last) return;
    width_ = s.width();
    height_ = s.height();
    s.run_check();
    const CheckResult& c = s.check();
    ++done_;
    if (!c.valid) {  // the check itself failed (message from the session)
        ++failed_;
        std::printf("check: frame %d at %dx%d, %s vs cpuref: FAIL, the check did not run: %s\n",
                    std::max(s.frame() - 1, 0), width_, height_, s.renderer_name().c_str(), s.message().c_str());
        std::fflush(stdout);
        return;
    }
    const bool pass = c.stats.pass;
    if (!pass) ++failed_;
    std::printf("check: frame %d at %dx%d, %s vs cpuref: %s, max error %.3g, %lld pixels beyond 1e-4\n",
                std::max(c.frame - 1, 0), width_, height_, s.renderer_name().c_str(), pass ? "PASS" : "FAIL",
                c.stats.max_abs_error, static_cast<long long>(c.stats.mismatches_strict));
    std::fflush(stdout);
}

bool AutoChecks::report() const {
    std::printf("check: %d of %d checks against cpuref passed\n", done_ - failed_, done_);
    std::fflush(stdout);
    return done_ > 0 && failed_ == 0;
}

void RateMeter::frame_rendered(Clock::time_point now) {
    ++frames_;
    ++window_frames_;
    const double dt = seconds_between(window_start_, now);
    if (dt >= 0.5) {
        window_rate_ = window_frames_ / dt;
        window_frames_ = 0;
        window_start_ = now;
        have_window_ = true;
    }
}

double RateMeter::rate(Clock::time_point now) const {
    if (have_window_) return window_rate_;
    const double dt = seconds_between(start_, now);
    return dt > 0 ? frames_ / dt : 0.0;
}

}  // namespace cr::app
