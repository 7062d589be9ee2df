// The GUI's main loop (see docs/GUI.md): poll events and input, tick the
// student's workbench, render the next frame, update the textures, draw the
// panel and the image panes. Every GL object lives in the Viewer, so all are
// gone before the context is destroyed.
#pragma once

#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "app_options.h"
#include "auto_run.h"
#include "image_view.h"
#include "inspector.h"
#include "interop.h"
#include "panel.h"
#include "scene_tracker.h"
#include "session.h"
#include "teaching_overlays.h"
#include "workbench.h"

struct GLFWwindow;

namespace cr::app {

/// What the GLFW callbacks collect for the main loop (the window's user
/// pointer; GLFW callbacks get no other context).
struct WindowInput {
    std::vector<int> pressed;  ///< keys pressed (or repeated) since the last frame
};

/// This frame's window and the image area right of the panel.
struct FrameGeometry {
    int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
    float panel_w = 0;  ///< in window units
    PixelRect area;     ///< framebuffer pixels right of the panel
};

/// One image drawn in the image area: the reference's, the student's, or
/// the student's with its difference from the reference over it.
struct Pane {
    /// Placeholder: side by side with a student folder loaded but no
    /// student frame yet (building, failed, cannot run here): the status.
    enum class Kind { Reference, Student, StudentDiff, Placeholder };
    Kind kind = Kind::Reference;
    PixelRect area;  ///< the part of the image area it owns
    PixelRect rect;  ///< where the image is drawn (zoomed: may reach beyond `area`)
    int width = 0, height = 0;  ///< the image's size in pixels
};

/// The heat-map and image textures drawn besides the renderer's image.
struct Overlays {
    HostTexture diff_tex, tile_tex, student_tex, student_diff_tex, warp_tex, blends_tex;
    HostTexture order_tex[3];
    float tile_cover_x = 1, tile_cover_y = 1, warp_cover_x = 1, warp_cover_y = 1;
    int diff_version = -1, tile_version = -1, student_version = -1;
    int student_diff_version = -1;  ///< the lane image version student_diff_tex shows
    /// (lane image version, session image version) of the last try at student_diff_tex.
    std::pair<int, int> student_diff_tried{-1, -1};
    TileSource tile_source = TileSource::Renderer;  ///< what tile_tex counts
};

/// Seconds between two "window: progress:" lines of an automated run (--frames).
constexpr double kProgressSeconds = 5.0;

/// See the file comment.
class Viewer {
public:
    /// `first_scene`: the start scene already loaded by the option check
    /// (ParseResult::scene), or empty to load it here.
    Viewer(GLFWwindow* window, WindowInput& input, const AppOptions& opt, std::optional<SceneLoad> first_scene = {});
    /// Runs until the window closes, Esc, or the end of a --frames run;
    /// returns the exit code.
    int run();

private:
    void start_session(std::optional<SceneLoad> first_scene);
    void start_workbench();
    /// Events, keys, mouse and this frame's geometry; false while minimized.
    bool poll(FrameGeometry& g);
    /// Renders the next frame when playing or stepping; runs the checks and
    /// window resizes of an automated run; the student's renderer follows.
    void step();
    /// After a rendered frame: the student's frame, pause at a mismatch.
    void follow_student();
    /// Copies the images and the overlays into their textures.
    void update_textures();
    void update_tile_overlay();
    /// The student's image into student_tex, when the lane has a new one.
    void update_student_texture();
    /// The Diff view's heat map of the student's image vs the reference's,
    /// made once per student image. Tried once per (lane image version,
    /// session image version): when the two cannot be compared (no renderer,
    /// other sizes) it waits for either image to change.
    void update_student_diff();
    /// The inspector and the warp map (background) follow the frame shown.
    void update_tools();
    /// The panes of the image area (the reference alone, or with the student's).
    std::vector<Pane> layout(const FrameGeometry& g) const;
    /// Wheel zoom, drag pan, click (or Shift + hover) to inspect a pixel.
    void handle_mouse(const FrameGeometry& g);
    /// Applies the panel's 1:1 / Fit requests and --zoom, for pane `p`.
    void apply_zoom_requests(const Pane& p);
    /// The panel, then the panes and their overlays.
    void draw(const FrameGeometry& g);
    void draw_pane(const Pane& p) const;
    /// Pane labels and the inspected pixel's marker (ImGui foreground).
    void draw_pane_marks(const FrameGeometry& g, const std::vector<Pane>& panes) const;
    /// The placeholder pane: a frame and the workbench's status in its middle.
    template <class ToWin>
    void draw_placeholder(ImDrawList* dl, const Pane& p, const ToWin& to_win) const;
    /// True when an automated run has reached its end.
    bool automated_run_done();
    /// Computes (in the background) and uploads the blends-needed map when shown.
    void update_blends_map();
    /// Counts a drawn frame; `marks` are the times the loop's phases ended
    /// (poll, tick, step, textures, tools, draw with the automated run's end
    /// check, swap), summed for the means and kept for the longest gap.
    static constexpr int kLoopPhases = 7;
    void note_window_frame(const std::array<Clock::time_point, kLoopPhases>& marks);
    /// Adds a frame's phases (ms) to the progress line's sums, and its gap
    /// since the frame before (ms, the phases' sum) to its longest, and
    /// prints it once kProgressSeconds have passed.
    void print_progress(const std::array<double, kLoopPhases>& phases, double gap_ms, Clock::time_point now);
    /// True while an automated run's last frame is still due from the student's lane.
    bool waiting_for_student_frame();
    /// At the end of a --frames run: screenshot, frame dumps, summary.
    void finish_automated_run(const FrameGeometry& g);
    void print_tool_lines();

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
    Workbench bench_;
    Inspector inspector_;
    SceneTracker tracker_;
    WarpMap warps_;
    BlendsMap blends_;
    int blends_shown_frame_ = -2;   ///< the blends map frame in blends_tex
    OrderDemo order_demo_;
    int warp_shown_frame_ = -2;     ///< the warp map frame in warp_tex
    int frames_after_builds_ = 0;   ///< --until-builds: window frames since the last build finished
    Clock::time_point student_wait_start_{};  ///< an automated run began waiting for the student's last frame
    bool finishing_ = false;        ///< an automated run is done but for the student's last frame
    bool sanitize_started_ = false; ///< --sanitize: the run was started
    Clock::time_point last_window_frame_{};
    double longest_window_gap_ms_ = 0;  ///< between two swaps, after the first few
    std::array<double, kLoopPhases> longest_gap_phases_ms_{};  ///< that gap's phases (see note_window_frame)
    std::array<double, kLoopPhases> phase_sums_ms_{};          ///< every counted frame's phases, summed
    int window_frames_ = 0;
    /// --student with --frames: a progress line every kProgressSeconds (window and student frame rates, the
    /// window's mean phases since the last line), so a run stopped from outside still says where time went.
    Clock::time_point progress_from_{};
    int progress_frames_ = 0, progress_student_frames_ = 0;
    std::array<double, kLoopPhases> progress_phase_ms_{};
    double progress_longest_ms_ = 0;  ///< the longest frame of the progress line's interval
    bool dragging_ = false;         ///< a left-button press started on the image
    bool initial_zoom_ = false;     ///< --zoom still to apply
};

}  // namespace cr::app
