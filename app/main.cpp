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

/// Prints the summary of a --frames run to stdout (flushed), with the
/// panel's own figures (its frame rate, whether its content fit the window)
/// so that a test can hold the screenshot to them.
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
                v.panel_content_height, v.panel_height, drawn_scale_label(v.drawn_scale).c_str());
    if (v.show_tiles)
        std::printf("  overlay: tiles, %s, busiest tile %d circles\n", v.tiles_note.c_str(), v.tile_max);
    if (v.show_diff && s.check().valid)
        std::printf("  overlay: diff of frame %d vs cpuref, %s\n", std::max(s.check().frame - 1, 0),
                    s.check().stats.pass ? "PASS" : "FAIL");
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

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

/// Rendered frames per second as the panel shows it: the rate over the
/// last completed half second, and before the first half second has passed
/// the mean since the start (so a short run never shows 0).
class RateMeter {
public:
    explicit RateMeter(Clock::time_point start) : start_(start), window_start_(start) {}
    /// Counts one rendered frame at `now`.
    void frame_rendered(Clock::time_point now) {
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
    /// The rate to show at `now`.
    double rate(Clock::time_point now) const {
        if (have_window_) return window_rate_;
        const double dt = seconds_between(start_, now);
        return dt > 0 ? frames_ / dt : 0.0;
    }

private:
    Clock::time_point start_, window_start_;
    int frames_ = 0, window_frames_ = 0;
    double window_rate_ = 0;
    bool have_window_ = false;
};

/// This frame's window and the image area right of the panel.
struct FrameGeometry {
    int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
    float panel_w = 0;  ///< in window units
    PixelRect area;     ///< framebuffer pixels right of the panel
};

/// The heat-map textures drawn over the image and what they show.
struct Overlays {
    HostTexture diff_tex, tile_tex;
    float tile_cover_x = 1, tile_cover_y = 1;
    int diff_version = -1, tile_version = -1;
};

/// The main loop's state; every GL object lives in here, so all are gone
/// before the context is destroyed.
class Viewer {
public:
    Viewer(GLFWwindow* window, WindowInput& input, const AppOptions& opt);
    /// Runs until the window closes, Esc, or the end of a --frames run;
    /// returns the exit code.
    int run();

private:
    void start_session();
    /// Events and this frame's geometry; false while minimized.
    bool poll(FrameGeometry& g);
    /// Renders the next frame when playing or stepping; runs the checks
    /// and window resizes of an automated run.
    void step();
    /// Copies the image and the overlays into their textures.
    void update_textures();
    void update_tile_overlay();
    /// The panel, then the image and its overlays.
    void draw(const FrameGeometry& g);
    /// At the end of a --frames run: screenshot, frame dump, summary.
    void finish_automated_run(const FrameGeometry& g);

    GLFWwindow* window_;
    WindowInput& input_;
    const AppOptions& opt_;
    Session session_;
    ViewState view_;
    DisplayTexture display_;
    Overlays overlays_;
    const ImageView image_view_;
    AutoChecks checks_;
    Clock::time_point start_ = Clock::now();
    RateMeter rate_{start_};
    int rendered_ = 0, shown_version_ = -1, exit_code_ = 0;
    double run_seconds_ = 0;  ///< a --frames run: seconds to its last frame
    bool vsync_applied_ = true;
};

Viewer::Viewer(GLFWwindow* window, WindowInput& input, const AppOptions& opt)
    : window_(window), input_(input), opt_(opt) {
    view_.vsync = opt.vsync;
    view_.pixel_exact = !opt.screenshot.empty();  // the screenshot test finds the image 1:1
    view_.show_tiles = opt.overlay_tiles;
    view_.show_diff = opt.overlay_diff;
    view_.cuda_ok = cuda_device_available(&view_.cuda_why);
    init_sizes(view_, opt.width, opt.height);
    view_.seed = static_cast<int>(opt.seed);
    start_session();
    vsync_applied_ = view_.vsync;
    glfwSwapInterval(view_.vsync ? 1 : 0);
}

void Viewer::start_session() {
    SceneChoice start;
    start.seed = opt_.seed;
    const auto& names = scene_names();
    if (!opt_.scene_file.empty()) {
        start.from_file = true;
        start.path = opt_.scene_file;
        view_.scene_path = opt_.scene_file;
        view_.scene_index = static_cast<int>(names.size());
    } else {
        start.name = opt_.scene;  // an unknown name is reported by set_scene
        start.particles = view_.particles_path = opt_.particles;
        const auto it = std::find(names.begin(), names.end(), opt_.scene);
        view_.scene_index = static_cast<int>(it == names.end() ? 0 : it - names.begin());
    }
    session_.set_size(opt_.width, opt_.height);
    session_.set_scene(start);
    if (opt_.renderer.empty() && !view_.cuda_ok)
        std::fprintf(stderr, "note: %s; using the cpu renderer\n", view_.cuda_why.c_str());
    session_.set_renderer(opt_.renderer.empty() ? default_renderer_name() : opt_.renderer);
    if (session_.is_error()) std::fprintf(stderr, "circle-renderer: %s\n", session_.message().c_str());
    if (!session_.scene_note().empty()) std::fprintf(stderr, "circle-renderer: %s\n", session_.scene_note().c_str());
}

bool Viewer::poll(FrameGeometry& g) {
    glfwPollEvents();
    glfwGetFramebufferSize(window_, &g.fb_w, &g.fb_h);
    glfwGetWindowSize(window_, &g.win_w, &g.win_h);
    if (g.fb_w <= 0 || g.fb_h <= 0 || g.win_w <= 0) {  // minimized
        glfwWaitEvents();
        return false;
    }
    if (view_.vsync != vsync_applied_) {
        glfwSwapInterval(view_.vsync ? 1 : 0);
        vsync_applied_ = view_.vsync;
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    handle_keys(session_, view_, input_.pressed);
    input_.pressed.clear();
    // The image area: the framebuffer right of the panel. At least one column
    // is left for the image, so "follow window" always has a size to render
    // (a window narrower than the panel squeezes it).
    g.panel_w = std::max(0.f, std::min(kPanelWidth, static_cast<float>(g.win_w - 1)));
    const int panel_px = static_cast<int>(g.panel_w * g.fb_w / g.win_w);
    g.area = PixelRect{panel_px, 0, g.fb_w - panel_px, g.fb_h};
    if (view_.sizes[static_cast<size_t>(view_.size_index)].first == 0 && g.area.w > 0)
        session_.set_size(g.area.w, g.area.h);
    return true;
}

void Viewer::step() {
    if (view_.playing || view_.step_requested || session_.needs_frame()) {
        if (session_.step()) {
            ++rendered_;
            rate_.frame_rendered(Clock::now());
            const bool last = rendered_ == opt_.frames;
            if (opt_.check) checks_.after_frame(session_, last);
            // --overlay diff: a check at start, and of the last frame of an automated run.
            else if (opt_.overlay_diff && (rendered_ == 1 || last)) session_.run_check();
            if (opt_.resize_every > 0 && rendered_ % opt_.resize_every == 0 && rendered_ < opt_.frames)
                resize_to_next(window_, opt_, rendered_ / opt_.resize_every - 1);
        }
        view_.step_requested = false;
    }
    // The figure a --frames run prints is the one its last frame shows.
    const auto now = Clock::now();
    if (opt_.frames > 0 && rendered_ >= opt_.frames && run_seconds_ == 0) run_seconds_ = seconds_between(start_, now);
    view_.render_fps = run_seconds_ > 0 ? rendered_ / run_seconds_ : rate_.rate(now);
    view_.display_fps = ImGui::GetIO().Framerate;
}

void Viewer::update_tile_overlay() {
    const TileLoads tl = session_.tile_loads();
    overlays_.tile_version = session_.image_version();
    if (tl.loads.empty() || tl.tiles_x <= 0 || tl.tiles_y <= 0) {
        view_.tiles_note = "renderer '" + session_.renderer_name() + "' has no tiles";
        view_.tile_max = -1;
        overlays_.tile_cover_x = 0;
        return;
    }
    const int top = *std::max_element(tl.loads.begin(), tl.loads.end());
    overlays_.tile_tex.set(tile_heatmap_rgba8(tl.loads, tl.tiles_x, tl.tiles_y, top), tl.tiles_x, tl.tiles_y);
    overlays_.tile_cover_x = static_cast<float>(session_.width()) / static_cast<float>(tl.tiles_x * tl.tile_size);
    overlays_.tile_cover_y = static_cast<float>(session_.height()) / static_cast<float>(tl.tiles_y * tl.tile_size);
    view_.tile_max = top;
    view_.tiles_note = std::to_string(tl.tiles_x) + " x " + std::to_string(tl.tiles_y) + " tiles of " +
                       std::to_string(tl.tile_size) + " px";
}

void Viewer::update_textures() {
    if (session_.renderer() && session_.image_version() != shown_version_) {
        try {
            display_.upload(*session_.renderer(), session_.width(), session_.height());
            shown_version_ = session_.image_version();
        } catch (const std::exception& e) {
            session_.renderer_failed(e);
        }
    }
    if (view_.show_diff && session_.check().valid && session_.check().version != overlays_.diff_version) {
        const Image& h = session_.check().heatmap;
        overlays_.diff_tex.set(to_rgb8_top_down(h, /*with_alpha=*/true), h.width, h.height);
        overlays_.diff_version = session_.check().version;
    }
    if (view_.show_tiles && overlays_.tile_version != session_.image_version()) update_tile_overlay();
}

void Viewer::draw(const FrameGeometry& g) {
    const PixelRect r = fit_image(g.area, display_.width(), display_.height(), view_.pixel_exact);
    view_.drawn_scale = display_.texture() && display_.width() > 0 ? static_cast<double>(r.w) / display_.width() : 0;
    // The panel shows this frame's numbers; what the user changes there is
    // rendered from the next iteration on.
    draw_panel(session_, view_, display_, g.panel_w);
    ImGui::Render();
    glViewport(0, 0, g.fb_w, g.fb_h);
    glClearColor(.12f, .12f, .14f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (display_.texture()) {
        const bool scaled_down = r.w < display_.width();
        image_view_.draw(display_.texture(), r, /*blend=*/false, 1.f, scaled_down);
        if (view_.show_diff && session_.check().valid && overlays_.diff_tex.texture())
            image_view_.draw(overlays_.diff_tex.texture(), r, true, view_.diff_opacity, scaled_down);
        if (view_.show_tiles && overlays_.tile_cover_x > 0 && overlays_.tile_tex.texture())
            image_view_.draw(overlays_.tile_tex.texture(), r, true, view_.tile_opacity, false, overlays_.tile_cover_x,
                             overlays_.tile_cover_y);
    }
    glViewport(0, 0, g.fb_w, g.fb_h);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Viewer::finish_automated_run(const FrameGeometry& g) {
    try {
        if (!opt_.screenshot.empty()) save_window_png(opt_.screenshot, g.fb_w, g.fb_h);
        if (!opt_.dump_frame.empty()) write_image(session_.renderer()->image(), opt_.dump_frame, ImageFormat::Png);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "circle-renderer: %s\n", e.what());
        exit_code_ = 1;
    }
    print_summary(session_, rendered_, run_seconds_, view_);
    if (opt_.check && !checks_.report()) exit_code_ = 1;
    if (session_.is_error() && !session_.message().empty()) {
        std::fprintf(stderr, "circle-renderer: %s\n", session_.message().c_str());
        exit_code_ = 1;
    }
    view_.quit = true;
}

int Viewer::run() {
    while (!glfwWindowShouldClose(window_) && !view_.quit) {
        FrameGeometry g;
        if (!poll(g)) continue;
        step();
        update_textures();
        draw(g);
        if (opt_.frames > 0 && !session_.renderer()) {
            std::fprintf(stderr, "circle-renderer: no renderer left to run: %s\n", session_.message().c_str());
            return 1;
        }
        if (opt_.frames > 0 && rendered_ >= opt_.frames) finish_automated_run(g);
        glfwSwapBuffers(window_);
    }
    return exit_code_;
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
        Viewer viewer(window, input, opt);
        rc = viewer.run();
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
