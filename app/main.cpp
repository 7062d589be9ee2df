// circle-renderer: the interactive viewer (see docs/GUI.md). GLFW window with
// an OpenGL 3.3 core context (GLAD), a Dear ImGui panel on the left and the
// renderer's image on the right.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iterator>
#include <string>
#include <vector>

#include "app_options.h"
#include "image_view.h"
#include "interop.h"
#include "panel.h"
#include "render/image_io.h"
#include "render/renderer_factory.h"
#include "session.h"

namespace cr::app {
namespace {

constexpr float kPanelWidth = 430.f;  ///< panel width in window coordinates

/// What the GLFW callbacks collect for the main loop (the window's user
/// pointer; GLFW callbacks get no other context).
struct WindowInput {
    std::vector<int> pressed;  ///< keys pressed (or repeated) since the last frame
};

/// Queues key presses, so that a press and release within one frame still
/// counts (ImGui 1.86 only sees keys held down at a frame's start). ImGui's
/// backend, installed afterwards, chains to this callback.
void key_callback(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
    auto* input = static_cast<WindowInput*>(glfwGetWindowUserPointer(window));
    if (input && key != GLFW_KEY_UNKNOWN && action != GLFW_RELEASE) input->pressed.push_back(key);
}

/// Reads the whole back buffer and writes it as an RGB PNG (rows flipped:
/// GL's first row is the bottom one). Throws cr::FileError.
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

/// Prints the summary of a --frames run to stdout (flushed).
void print_summary(const Session& s, int frames, double seconds) {
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
    std::fflush(stdout);
}

/// The --check runs of an automated (--frames) session: the first frame at
/// every render size and the last frame are compared with cpuref.
class AutoChecks {
public:
    /// Call after each rendered frame; checks it when the render size is new
    /// or `last` is set, and prints one line per check to stdout (frame
    /// numbered from 0, as on the panel and in `render -b`).
    void after_frame(Session& s, bool last) {
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
    /// Prints the total; returns true when every check passed (and one ran).
    bool report() const {
        std::printf("check: %d of %d checks against cpuref passed\n", done_ - failed_, done_);
        std::fflush(stdout);
        return done_ > 0 && failed_ == 0;
    }

private:
    int width_ = -1, height_ = -1;
    int done_ = 0, failed_ = 0;
};

/// --resize-every: step `step` (0, 1, ...) resizes the window to the next
/// size of kResizeCycle; after the cycle's end, back to the initial size.
void resize_to_next(GLFWwindow* window, const AppOptions& opt, int step) {
    constexpr int n = static_cast<int>(std::size(kResizeCycle));
    const int i = step % (n + 1);
    const int w = i < n ? kResizeCycle[i][0] : opt.window_width;
    const int h = i < n ? kResizeCycle[i][1] : opt.window_height;
    glfwSetWindowSize(window, w, h);
}

/// The main loop; every GL object lives in here, so all are gone before the
/// context is destroyed. Returns the exit code.
int run(GLFWwindow* window, WindowInput& input, const AppOptions& opt) {
    Session session;
    ViewState view;
    view.vsync = opt.vsync;
    view.pixel_exact = !opt.screenshot.empty();  // the screenshot test finds the image 1:1
    view.cuda_ok = cuda_device_available(&view.cuda_why);
    init_sizes(view, opt.width, opt.height);
    view.seed = static_cast<int>(opt.seed);

    SceneChoice start;
    start.seed = opt.seed;
    const auto& names = scene_names();
    if (!opt.scene_file.empty()) {
        start.from_file = true;
        start.path = opt.scene_file;
        view.scene_path = opt.scene_file;
        view.scene_index = static_cast<int>(names.size());
    } else {
        start.name = opt.scene;  // an unknown name is reported by set_scene
        start.particles = view.particles_path = opt.particles;
        const auto it = std::find(names.begin(), names.end(), opt.scene);
        view.scene_index = static_cast<int>(it == names.end() ? 0 : it - names.begin());
    }
    session.set_size(opt.width, opt.height);
    session.set_scene(start);
    session.set_renderer(opt.renderer.empty() ? default_renderer_name() : opt.renderer);
    if (session.is_error()) std::fprintf(stderr, "circle-renderer: %s\n", session.message().c_str());
    if (!session.scene_note().empty()) std::fprintf(stderr, "circle-renderer: %s\n", session.scene_note().c_str());

    DisplayTexture display;
    HostTexture diff_tex, tile_tex;
    float tile_cover_x = 1, tile_cover_y = 1;
    int diff_version = -1, tile_version = -1, shown_version = -1;
    const ImageView view_gl;

    bool vsync_applied = view.vsync;
    glfwSwapInterval(view.vsync ? 1 : 0);

    using clock = std::chrono::steady_clock;
    const auto t_start = clock::now();
    auto fps_t0 = t_start;
    int fps_frames = 0, rendered = 0;
    int exit_code = 0;
    AutoChecks checks;

    while (!glfwWindowShouldClose(window) && !view.quit) {
        glfwPollEvents();
        int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
        glfwGetFramebufferSize(window, &fb_w, &fb_h);
        glfwGetWindowSize(window, &win_w, &win_h);
        if (fb_w <= 0 || fb_h <= 0 || win_w <= 0) {  // minimized
            glfwWaitEvents();
            continue;
        }
        if (view.vsync != vsync_applied) {
            glfwSwapInterval(view.vsync ? 1 : 0);
            vsync_applied = view.vsync;
        }

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        handle_keys(session, view, input.pressed);
        input.pressed.clear();
        // The image area: the framebuffer right of the panel.
        // At least one column is left for the image, so "follow window" always
        // has a size to render (a window narrower than the panel squeezes it).
        const float panel_w = std::max(0.f, std::min(kPanelWidth, static_cast<float>(win_w - 1)));
        const int panel_px = static_cast<int>(panel_w * fb_w / win_w);
        const PixelRect area{panel_px, 0, fb_w - panel_px, fb_h};
        if (view.sizes[static_cast<size_t>(view.size_index)].first == 0 && area.w > 0)
            session.set_size(area.w, area.h);

        if (view.playing || view.step_requested || session.needs_frame()) {
            if (session.step()) {
                ++rendered;
                ++fps_frames;
                if (opt.check) checks.after_frame(session, rendered == opt.frames);
                if (opt.resize_every > 0 && rendered % opt.resize_every == 0 && rendered < opt.frames)
                    resize_to_next(window, opt, rendered / opt.resize_every - 1);
            }
            view.step_requested = false;
        }
        // After the step, so the panel shows this frame's numbers; what the
        // user changes there is rendered from the next iteration on.
        draw_panel(session, view, display, panel_w);
        if (session.renderer() && session.image_version() != shown_version) {
            try {
                display.upload(*session.renderer(), session.width(), session.height());
                shown_version = session.image_version();
            } catch (const std::exception& e) {
                session.renderer_failed(e);
            }
        }
        if (view.show_diff && session.check().valid && session.check().version != diff_version) {
            const Image& h = session.check().heatmap;
            diff_tex.set(to_rgb8_top_down(h, /*with_alpha=*/true), h.width, h.height);
            diff_version = session.check().version;
        }
        if (view.show_tiles && tile_version != session.image_version()) {
            const TileLoads tl = session.tile_loads();
            const std::vector<int>& loads = tl.loads;
            const int tx = tl.tiles_x, ty = tl.tiles_y, ts = tl.tile_size;
            tile_version = session.image_version();
            if (loads.empty() || tx <= 0 || ty <= 0) {
                view.tiles_note = "renderer '" + session.renderer_name() + "' has no tiles";
                tile_cover_x = 0;
            } else {
                const int top = *std::max_element(loads.begin(), loads.end());
                tile_tex.set(tile_heatmap_rgba8(loads, tx, ty, top), tx, ty);
                tile_cover_x = static_cast<float>(session.width()) / static_cast<float>(tx * ts);
                tile_cover_y = static_cast<float>(session.height()) / static_cast<float>(ty * ts);
                view.tiles_note = std::to_string(tx) + " x " + std::to_string(ty) + " tiles of " +
                                  std::to_string(ts) + " px; busiest tile: " + std::to_string(top) +
                                  " circles (linear colour scale)";
            }
        }

        const auto now = clock::now();
        const double dt = std::chrono::duration<double>(now - fps_t0).count();
        if (dt >= 0.5) {
            view.render_fps = fps_frames / dt;
            fps_frames = 0;
            fps_t0 = now;
        }
        view.display_fps = ImGui::GetIO().Framerate;

        ImGui::Render();
        glViewport(0, 0, fb_w, fb_h);
        glClearColor(.12f, .12f, .14f, 1.f);
        glClear(GL_COLOR_BUFFER_BIT);
        if (display.texture()) {
            const PixelRect r = fit_image(area, display.width(), display.height(), view.pixel_exact);
            const bool scaled_down = r.w < display.width();
            view_gl.draw(display.texture(), r, /*blend=*/false, 1.f, scaled_down);
            if (view.show_diff && session.check().valid && diff_tex.texture())
                view_gl.draw(diff_tex.texture(), r, true, view.diff_opacity, scaled_down);
            if (view.show_tiles && tile_cover_x > 0 && tile_tex.texture())
                view_gl.draw(tile_tex.texture(), r, true, view.tile_opacity, false, tile_cover_x, tile_cover_y);
        }
        glViewport(0, 0, fb_w, fb_h);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

        if (opt.frames > 0 && !session.renderer()) {
            std::fprintf(stderr, "circle-renderer: no renderer left to run: %s\n", session.message().c_str());
            return 1;
        }
        if (opt.frames > 0 && rendered >= opt.frames) {
            const double secs = std::chrono::duration<double>(clock::now() - t_start).count();
            try {
                if (!opt.screenshot.empty()) save_window_png(opt.screenshot, fb_w, fb_h);
                if (!opt.dump_frame.empty())
                    write_image(session.renderer()->image(), opt.dump_frame, ImageFormat::Png);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "circle-renderer: %s\n", e.what());
                exit_code = 1;
            }
            print_summary(session, rendered, secs);
            if (opt.check && !checks.report()) exit_code = 1;
            if (session.is_error() && !session.message().empty()) {
                std::fprintf(stderr, "circle-renderer: %s\n", session.message().c_str());
                exit_code = 1;
            }
            view.quit = true;
        }
        glfwSwapBuffers(window);
    }
    return exit_code;
}

void print_glfw_error(int code, const char* description) {
    std::fprintf(stderr, "circle-renderer: GLFW error %d: %s\n", code, description);
}

}  // namespace
}  // namespace cr::app

int main(int argc, char** argv) {
    using namespace cr::app;
    const ParseResult parsed = parse_app_options(argc, argv);
    if (parsed.exit_now) return parsed.exit_code;
    const AppOptions& opt = parsed.options;

    if (!glfwInit()) {
        const char* why = nullptr;
        glfwGetError(&why);
        std::fprintf(stderr, "circle-renderer: cannot open a window (%s); run it on a desktop or under xvfb-run\n",
                     why ? why : "glfwInit failed");
        return 2;
    }
    glfwSetErrorCallback(print_glfw_error);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    GLFWwindow* window = glfwCreateWindow(opt.window_width, opt.window_height, "circle-renderer", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "circle-renderer: cannot create an OpenGL 3.3 core window\n");
        glfwTerminate();
        return 2;
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "circle-renderer: cannot load OpenGL 3.3 functions\n");
        glfwDestroyWindow(window);
        glfwTerminate();
        return 2;
    }

    WindowInput input;
    glfwSetWindowUserPointer(window, &input);
    glfwSetKeyCallback(window, key_callback);  // before ImGui's, which chains to it

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");

    int rc = 0;
    try {
        rc = run(window, input, opt);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "circle-renderer: %s\n", e.what());
        rc = 1;
    }

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return rc;
}
