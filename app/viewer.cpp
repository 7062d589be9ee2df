#include "viewer.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>

#include "render/image_io.h"
#include "render/renderer_factory.h"
#include "render/student/sanitize.h"

namespace cr::app {

namespace {

constexpr float kPanelWidth = 430.f;  ///< panel width in window coordinates
constexpr int kStartFrames = 5;       ///< the window's first frames upload fonts and textures: not counted in its gaps
/// The main loop's phases, as Viewer::run() marks their ends.
constexpr const char* kPhaseNames[] = {"events", "workbench", "frame", "textures", "tools", "panel and draw", "swap"};

/// "events 1.2 ms, workbench 0.0 ms, ..." of `ms` (one value a phase), each
/// divided by `over`, with `digits` decimals and `unit` after each.
std::string phase_list(const double* ms, int phases, double over, int digits, const char* unit) {
    std::string out;
    char buf[64];
    for (int i = 0; i < phases; ++i) {
        std::snprintf(buf, sizeof buf, "%s%s %.*f%s", i ? ", " : "", kPhaseNames[i], digits, ms[i] / over, unit);
        out += buf;
    }
    return out;
}

WorkbenchOptions workbench_options(const AppOptions& opt) {
    WorkbenchOptions w;
    w.call_timeout_s = opt.student_timeout_s;
    w.memory_bytes = opt.student_memory_bytes;
    w.arch_flags = opt.student_arch;
    w.max_student_fps = opt.student_fps;
    w.gpu = opt.student_gpu;
    w.use_settings = !opt.no_settings;
    return w;
}

CompareView compare_view_of(const std::string& name) {
    if (name == "student") return CompareView::Student;
    if (name == "reference") return CompareView::Reference;
    if (name == "diff") return CompareView::Diff;
    return CompareView::SideBySide;
}

int tab_of(const AppOptions& opt) {
    if (opt.tab == "teaching") return static_cast<int>(PanelTab::Teaching);
    if (opt.tab == "workbench" || (opt.tab.empty() && !opt.student.empty())) return static_cast<int>(PanelTab::Workbench);
    return static_cast<int>(PanelTab::Viewer);
}

}  // namespace

Viewer::Viewer(GLFWwindow* window, WindowInput& input, const AppOptions& opt, std::optional<SceneLoad> first_scene)
    : window_(window), input_(input), opt_(opt), bench_(workbench_options(opt)) {
    view_.vsync = opt.vsync;
    view_.pixel_exact = !opt.screenshot.empty();  // the screenshot test finds the image 1:1
    view_.show_tiles = opt.overlay_tiles;
    view_.tile_source = static_cast<TileSource>(opt.overlay_tile_source);
    view_.show_diff = opt.overlay_diff;
    view_.show_warps = opt.overlay_warps;
    view_.show_blends = opt.overlay_blends;
    view_.cuda_ok = cuda_device_available(&view_.cuda_why);
    init_sizes(view_, opt.width, opt.height);
    view_.seed = static_cast<int>(opt.seed);
    start_session(std::move(first_scene));
    start_workbench();
    vsync_applied_ = view_.vsync;
    glfwSwapInterval(view_.vsync ? 1 : 0);
}

void Viewer::start_session(std::optional<SceneLoad> first_scene) {
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
    session_.set_scene(start, std::move(first_scene));  // the same request as the option check's
    // With --student the default reference is cpu: cpuref's pixels on every core, and the GPU left to the student.
    const bool student_default = opt_.renderer.empty() && !opt_.student.empty();
    if (opt_.renderer.empty() && !view_.cuda_ok && !student_default)
        std::fprintf(stderr, "note: %s; using the cpu renderer\n", view_.cuda_why.c_str());
    session_.set_renderer(student_default ? "cpu" : opt_.renderer.empty() ? default_renderer_name() : opt_.renderer);
    if (session_.is_error()) std::fprintf(stderr, "circle-renderer: %s\n", session_.message().c_str());
    if (!session_.scene_note().empty()) std::fprintf(stderr, "circle-renderer: %s\n", session_.scene_note().c_str());
}

void Viewer::start_workbench() {
    view_.tab_request = tab_of(opt_);
    view_.compare_view = compare_view_of(opt_.compare);
    view_.pause_on_mismatch = opt_.pause_on_mismatch;
    const std::vector<std::string>& tools = student::sanitizer_tools();  // the panel's order
    for (size_t t = 0; t < tools.size(); ++t)
        if (opt_.sanitize == tools[t]) view_.sanitize_tool = static_cast<int>(t);
    if (opt_.inspect) inspector_.select(opt_.inspect_x, opt_.inspect_y);
    initial_zoom_ = opt_.zoom != 1;
    try {
        order_demo_ = make_order_demo(160);
        overlays_.order_tex[0].set(to_rgb8_top_down(order_demo_.in_order, true), 160, 160);
        overlays_.order_tex[1].set(to_rgb8_top_down(order_demo_.reversed, true), 160, 160);
        overlays_.order_tex[2].set(to_rgb8_top_down(order_demo_.difference, true), 160, 160);
    } catch (const std::exception& e) {
        session_.notify(std::string("order demo not made: ") + e.what(), true);
    }
    if (!bench_.settings_error().empty()) std::fprintf(stderr, "circle-renderer: %s\n", bench_.settings_error().c_str());
    if (!opt_.student.empty()) {
        view_.student_folder = opt_.student;
        bench_.load(opt_.student);
    }
}

bool Viewer::poll(FrameGeometry& g) {
    glfwPollEvents();
    glfwGetFramebufferSize(window_, &g.fb_w, &g.fb_h);
    glfwGetWindowSize(window_, &g.win_w, &g.win_h);
    if (g.fb_w <= 0 || g.fb_h <= 0 || g.win_w <= 0) {  // minimized
        glfwWaitEventsTimeout(0.25);                   // a build may finish meanwhile
        bench_.tick();
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
    handle_mouse(g);
    return true;
}

void Viewer::step() {
    const bool automated_done = opt_.frames > 0 && rendered_ >= opt_.frames;
    // Pausing at the first mismatching frame needs the session in step with
    // the student: it waits (the window still draws) while the student's frame is out.
    const bool wait_for_student = view_.pause_on_mismatch && view_.playing && bench_.lane().busy();
    if (!automated_done && !finishing_ && !wait_for_student &&
        (view_.playing || view_.step_requested || session_.needs_frame())) {
        if (session_.step()) {
            ++rendered_;
            const auto now = Clock::now();
            rate_.frame_rendered(now);
            bench_.frame_rendered(now);
            const bool last = rendered_ == opt_.frames;
            if (opt_.check) checks_.after_frame(session_, last);
            // --overlay diff: a check at start, and of the last frame of an automated run.
            else if (opt_.overlay_diff && (rendered_ == 1 || last)) session_.run_check();
            if (opt_.resize_every > 0 && rendered_ % opt_.resize_every == 0 && rendered_ < opt_.frames)
                resize_to_next(window_, opt_, rendered_ / opt_.resize_every - 1);
        }
        view_.step_requested = false;
    }
    follow_student();
    if (!opt_.sanitize.empty() && !sanitize_started_ && bench_.has_build() && !bench_.building()) {
        bench_.start_sanitize(session_, opt_.sanitize);  // --sanitize TOOL: once, on the first build
        sanitize_started_ = true;
    }
    // The figure a --frames run prints is the one its last frame shows.
    const auto now = Clock::now();
    if (opt_.frames > 0 && rendered_ >= opt_.frames && run_seconds_ == 0) run_seconds_ = seconds_between(start_, now);
    view_.render_fps = run_seconds_ > 0 ? rendered_ / run_seconds_ : rate_.rate(now);
    view_.display_fps = ImGui::GetIO().Framerate;
}

void Viewer::follow_student() {
    const float rule = view_.pause_rule_course ? kCourseTolerance : kStrictTolerance;
    if (!bench_.after_frame(session_, rule) || !view_.pause_on_mismatch || !view_.playing) return;
    view_.playing = false;
    view_.pause_on_mismatch = false;  // the first such frame only; tick the box again for the next
    const int frame = bench_.lane().compare().frame;
    view_.paused_note = "paused at frame " + std::to_string(frame) + ": the first frame that fails the " +
                        (view_.pause_rule_course ? "course rule (0.1)" : "strict rule (1e-4)");
    std::printf("workbench: %s\n", view_.paused_note.c_str());
    std::fflush(stdout);
}

void Viewer::update_tools() {
    // An automated run refreshes at once, so its screenshot shows the frame drawn.
    inspector_.update(session_, bench_.lane(), tracker_, view_.playing && opt_.frames == 0);
    update_blends_map();
    if (!view_.show_warps) return;
    warps_.request(session_, tracker_);
    if (warps_.poll() || (warps_.has_result() && warp_shown_frame_ != warps_.result_frame())) {
        const WarpActivity& a = warps_.result();
        overlays_.warp_tex.set(warp_map_rgba8(a), a.warps_x, a.warps_y);
        overlays_.warp_cover_x = static_cast<float>(session_.width()) / static_cast<float>(a.warps_x * a.warp_width);
        overlays_.warp_cover_y = static_cast<float>(session_.height()) / static_cast<float>(a.warps_y * a.warp_height);
        warp_shown_frame_ = warps_.result_frame();
    }
}

void Viewer::update_blends_map() {
    if (!view_.show_blends) return;
    blends_.request(session_, tracker_);
    if (blends_.poll() || (blends_.has_result() && blends_shown_frame_ != blends_.result_frame())) {
        const CoalescenceStats& b = blends_.result();
        overlays_.blends_tex.set(blends_map_rgba8(b), b.width, b.height);
        blends_shown_frame_ = blends_.result_frame();
    }
}

bool Viewer::automated_run_done() {
    if (opt_.frames <= 0) return false;
    if (opt_.until_builds > 0) {
        const bool built = bench_.builds_finished() >= opt_.until_builds && !bench_.building();
        frames_after_builds_ = built ? frames_after_builds_ + 1 : 0;
        if (frames_after_builds_ < kFramesAfterBuilds && rendered_ < opt_.frames) return false;
    } else if (rendered_ < opt_.frames) {
        return false;
    }
    // A warp map shown is waited for, so the summary and screenshot are of the last frame.
    if (view_.show_warps && (warps_.running() || warp_shown_frame_ != session_.frame() - 1)) return false;
    if (view_.show_blends && (blends_.running() || blends_shown_frame_ != session_.frame() - 1)) return false;
    finishing_ = true;  // from here the session renders no more frames: the student catches up with the last
    if (!opt_.sanitize.empty() && (!sanitize_started_ || bench_.sanitizing())) return false;  // its report is awaited
    return !waiting_for_student_frame();
}

bool Viewer::waiting_for_student_frame() {
    // The student draws on its own thread, a frame or so behind: its last
    // frame is waited for (the window keeps drawing), at most one time limit more.
    const StudentLane& lane = bench_.lane();
    const bool running = lane.state() == StudentLane::State::Ready || lane.state() == StudentLane::State::Running;
    if (!running || (!lane.busy() && lane.compare().valid && lane.compare().frame == session_.frame() - 1)) return false;
    const auto now = Clock::now();
    if (student_wait_start_ == Clock::time_point{}) student_wait_start_ = now;
    return seconds_between(student_wait_start_, now) < opt_.student_timeout_s + 5;
}

void Viewer::print_tool_lines() {
    if (view_.show_warps && warps_.has_result())
        std::printf("  overlay: warps, frame %d, %.1f of 32 lanes active on average over %d x %d warps\n",
                    warps_.result_frame(), mean_lanes(warps_.result()), warps_.result().warps_x, warps_.result().warps_y);
    if (view_.show_blends && blends_.has_result()) {
        const CoalescenceStats& b = blends_.result();
        std::printf("  overlay: blends, frame %d, median %d blends needed a pixel (of %d covering), %.2f times fewer "
                    "than cpuref's, %lld pixels differ from cpuref's\n",
                    blends_.result_frame(), percentile(b.needed, .5), percentile(b.covering, .5),
                    b.reduction(), b.mismatches);
    }
    if (inspector_.has_pixel()) {
        inspector_.update(session_, bench_.lane(), tracker_, /*playing=*/false);
        std::istringstream lines(inspector_.text());
        for (std::string line; std::getline(lines, line);) std::printf("inspect: %s\n", line.c_str());
    }
    if (!opt_.student.empty()) {
        bench_.print_summary();
        std::printf("window: longest gap between two drawn frames: %.0f ms (over %d frames, the first %d not counted); "
                    "in it: %s\n", longest_window_gap_ms_, window_frames_, kStartFrames,
                    phase_list(longest_gap_phases_ms_.data(), kLoopPhases, 1, 1, " ms").c_str());
        const int n = std::max(window_frames_ - kStartFrames, 1);
        std::printf("window: mean ms per frame: %s\n", phase_list(phase_sums_ms_.data(), kLoopPhases, n, 2, "").c_str());
    }
    std::fflush(stdout);
}

void Viewer::finish_automated_run(const FrameGeometry& g) {
    if (run_seconds_ == 0) run_seconds_ = seconds_between(start_, Clock::now());
    try {
        if (!opt_.screenshot.empty()) save_window_png(opt_.screenshot, g.fb_w, g.fb_h);
        if (!opt_.dump_frame.empty()) write_image(session_.renderer()->image(), opt_.dump_frame, ImageFormat::Png);
        if (!opt_.dump_student.empty()) {
            if (bench_.lane().image().width == 0) throw std::runtime_error("--dump-student: the student's renderer drew no frame");
            write_image(bench_.lane().image(), opt_.dump_student, ImageFormat::Png);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "circle-renderer: %s\n", e.what());
        exit_code_ = 1;
    }
    print_summary(session_, rendered_, run_seconds_, view_);
    print_tool_lines();
    if (opt_.check && !checks_.report()) exit_code_ = 1;
    if (session_.is_error() && !session_.message().empty()) {
        std::fprintf(stderr, "circle-renderer: %s\n", session_.message().c_str());
        exit_code_ = 1;
    }
    view_.quit = true;
}

void Viewer::print_progress(const std::array<double, kLoopPhases>& phases, double gap_ms, Clock::time_point now) {
    if (opt_.frames <= 0) return;  // automated runs only: a run stopped from outside still says which phase waits
    if (progress_from_ == Clock::time_point{}) progress_from_ = now;
    ++progress_frames_;
    for (size_t i = 0; i < phases.size(); ++i) progress_phase_ms_[i] += phases[i];
    progress_longest_ms_ = std::max(progress_longest_ms_, gap_ms);
    const double s = seconds_between(progress_from_, now);
    if (s < kProgressSeconds) return;
    const int student = bench_.lane().frames_rendered();
    char rates[96];
    if (opt_.student.empty()) std::snprintf(rates, sizeof rates, "%.1f frames/s", progress_frames_ / s);
    else
        std::snprintf(rates, sizeof rates, "%.1f frames/s, student %.1f frames/s", progress_frames_ / s,
                      (student - progress_student_frames_) / s);
    std::printf("window: progress: %s over the last %.1f s; mean ms per frame: %s; longest %.1f ms\n", rates, s,
                phase_list(progress_phase_ms_.data(), kLoopPhases, progress_frames_, 2, "").c_str(), progress_longest_ms_);
    std::fflush(stdout);
    progress_from_ = now;
    progress_frames_ = 0;
    progress_student_frames_ = student;
    progress_phase_ms_ = {};
    progress_longest_ms_ = 0;
}

void Viewer::note_window_frame(const std::array<Clock::time_point, kLoopPhases>& marks) {
    static_assert(std::size(kPhaseNames) == kLoopPhases, "a name for every phase run() marks");
    const double gap = seconds_between(last_window_frame_, marks.back()) * 1000;
    if (++window_frames_ > kStartFrames) {
        std::array<double, kLoopPhases> phases{};
        Clock::time_point from = last_window_frame_;
        for (size_t i = 0; i < marks.size(); ++i) {
            phases[i] = seconds_between(from, marks[i]) * 1000;
            phase_sums_ms_[i] += phases[i];
            from = marks[i];
        }
        if (gap > longest_window_gap_ms_) {
            longest_window_gap_ms_ = gap;
            longest_gap_phases_ms_ = phases;
        }
        print_progress(phases, gap, marks.back());
    }
    last_window_frame_ = marks.back();
}

int Viewer::run() {
    while (!glfwWindowShouldClose(window_) && !view_.quit) {
        FrameGeometry g;
        std::array<Clock::time_point, kLoopPhases> marks;
        if (!poll(g)) continue;
        marks[0] = Clock::now();
        bench_.tick();
        marks[1] = Clock::now();
        step();
        marks[2] = Clock::now();
        update_textures();
        marks[3] = Clock::now();
        update_tools();
        marks[4] = Clock::now();
        draw(g);
        if (opt_.frames > 0 && !session_.renderer()) {
            std::fprintf(stderr, "circle-renderer: no renderer left to run: %s\n", session_.message().c_str());
            return 1;
        }
        if (automated_run_done()) finish_automated_run(g);
        marks[5] = Clock::now();
        glfwSwapBuffers(window_);
        marks[6] = Clock::now();
        note_window_frame(marks);
    }
    if (bench_.building()) {  // the build thread is joined when the Viewer goes; no window meanwhile
        glfwHideWindow(window_);
        std::fprintf(stderr, "circle-renderer: waiting for the running build of your renderer to end\n");
    }
    return exit_code_;
}

}  // namespace cr::app
