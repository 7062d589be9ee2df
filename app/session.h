// What the GUI renders: the scene, the active renderer, its stage statistics,
// and the checks against cpuref. No GL here; every renderer exception is
// caught, reported through message(), and answered by falling back to "cpu".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/core/renderer.h"
#include "render/scene_source.h"
#include "scenes/scene.h"

namespace cr::app {

/// Which scene to show: a built-in one (with the seed) or a scene file.
struct SceneChoice {
    bool from_file = false;
    std::string name = "rgb";  ///< built-in scene name (when !from_file)
    std::string path;          ///< scene file path (when from_file; a .par loads as a still snow scene)
    std::string particles;     ///< snowsingle: particle file to read ("" = ./snow.par when it exists)
    uint32_t seed = 0;
};

/// Last value, running mean and a rolling history of one stage's time.
struct StageSeries {
    static constexpr int kHistory = 240;  ///< frames kept for the plot
    std::string name;
    std::string course;
    double last_ms = 0;
    std::vector<float> history;  ///< ring buffer of kHistory values
    int next = 0;                ///< ring position of the next value
    int filled = 0;              ///< values stored so far (<= kHistory)
};

/// Adds one frame's stage times to `series` (a new series per new stage name).
void record_stages(std::vector<StageSeries>& series, const std::vector<StageTime>& times);

/// The stage times of one renderer's frames since it was last set up: a
/// series per stage (the stage table and its plots) and the sums (in ms;
/// cr::mean_of gives the means).
struct StageLog {
    std::vector<StageSeries> stages;  ///< in stage order
    FrameTimes sums;
    /// Adds one frame's stage times to both.
    void add(const std::vector<StageTime>& times);
    /// Forgets every frame (a new setup).
    void reset();
};

/// Mean stage times of every renderer run in this session, one entry per
/// renderer, scene and size, for the panel's bar chart.
class TimingBoard {
public:
    /// One renderer on one scene at one size.
    struct Entry {
        std::string renderer;  ///< e.g. "tiled" or "student"
        std::string method;    ///< how it was timed, e.g. "cudaEvents"
        std::string scene;
        int width = 0, height = 0;
        FrameTimes sums;       ///< cr::mean_of gives the means
    };
    static constexpr size_t kMaxEntries = 8;  ///< the oldest entry goes first
    /// Adds one frame's times to the entry of (renderer, scene, size).
    void add(const std::string& renderer, const std::string& method, const std::string& scene, int width,
             int height, const std::vector<StageTime>& times);
    const std::vector<Entry>& entries() const { return entries_; }

private:
    std::vector<Entry> entries_;  ///< in order of first use
};

/// How `r`'s stages are timed, the short label of the stage table and the
/// timing board, from the renderer's own properties (as cr::timing_method_text):
/// the course's method when r.course_timing() (the student's renderer),
/// "cudaEvents" when it has a device image (GPU renderers: call it once r is
/// set up), else "host clock" (CPU renderers).
std::string timing_label_of(const Renderer& r);

/// Result of "Check vs cpuref" for one frame.
struct CheckResult {
    bool valid = false;
    int frame = 0;              ///< frames advanced (renderer frame()) when checked
    std::string renderer;       ///< the renderer checked
    bool incorrect_by_design = false;
    CompareStats stats;
    std::string summary;        ///< cr::describe(stats)
    Image heatmap;              ///< cr::diff_heatmap(test, cpuref)
    int version = 0;            ///< bumps with every new check
};

/// The GUI's renderer state; see the file comment.
class Session {
public:
    /// Builds the scene (message() reports a failure and leaves the previous
    /// one; the first failure leaves an empty scene), then restarts at frame 0.
    /// `loaded`: the scene of `choice` when already loaded (by the option
    /// check at start), used instead of loading it again.
    void set_scene(const SceneChoice& choice, std::optional<SceneLoad> loaded = {});
    /// Switches to renderer `name`, keeping scene, size and frame number.
    void set_renderer(const std::string& name);
    /// Changes the render size (keeps the frame number); no-op when equal.
    void set_size(int width, int height);
    /// Sets up the renderer again from the scene's start (frame 0).
    void restart();
    /// Renders the next frame: clear, advance, render; records stage times.
    /// Returns false when there is no renderer or it failed (fell back).
    bool step();
    /// True after a (re)setup until the first frame is rendered.
    bool needs_frame() const { return needs_frame_; }
    /// Renders cpuref at the same scene, size and frame count and compares
    /// the active renderer's image with it (result in check()).
    void run_check();
    /// Saves the current image as the first free circle_NNNN.png in the
    /// working directory (written atomically); returns the name, "" on failure.
    std::string save_png();

    /// The active renderer (null only when even the "cpu" fallback failed).
    Renderer* renderer() { return renderer_.get(); }
    const std::string& renderer_name() const { return renderer_name_; }
    const SceneChoice& scene_choice() const { return choice_; }
    const Scene& scene() const { return scene_; }
    /// Where the scene's circles came from, one line (cr::SceneLoad::note;
    /// "" for generated scenes other than snowsingle).
    const std::string& scene_note() const { return scene_note_; }
    int width() const { return width_; }
    int height() const { return height_; }
    /// Frames advanced by the renderer (the number shown as "frame").
    int frame() const { return renderer_ ? renderer_->frame() : 0; }
    /// Bumps whenever the image changed (new frame, new setup).
    int image_version() const { return image_version_; }
    /// Bumps whenever the renderer is set up again (scene, size, renderer,
    /// restart): frames before it belong to another run.
    int setup_version() const { return setup_version_; }
    /// Bumps whenever a new scene is loaded.
    int scene_version() const { return scene_version_; }

    /// Per-stage series of the frames since the last setup, in stage order.
    const std::vector<StageSeries>& stages() const { return log_.stages; }
    /// Sums of the stage times since the last setup (cr::mean_of for means).
    const FrameTimes& stage_sums() const { return log_.sums; }
    /// How the active renderer's stages are timed (timing_label_of, taken
    /// when it was set up; "" while none is set up).
    const std::string& timing_label() const { return timing_label_; }
    /// Every renderer's mean times in this session (this one's and others').
    TimingBoard& timing_board() { return board_; }
    const TimingBoard& timing_board() const { return board_; }
    /// The scene's label: its name and seed, or the file path.
    std::string scene_label() const;
    const CheckResult& check() const { return check_; }
    /// Discards the check result (the panel hides its overlay).
    void clear_check() { check_.valid = false; }

    /// Last error or notice for the panel ("" when none); is_error() tells
    /// which.
    const std::string& message() const { return message_; }
    bool is_error() const { return message_is_error_; }
    void clear_message() { message_.clear(); }
    /// Sets the panel message.
    void notify(const std::string& text, bool error);
    /// Reports an exception the active renderer threw outside the session
    /// (e.g. while its image was copied for display) and falls back to "cpu".
    void renderer_failed(const std::exception& e) { recover("renderer '" + renderer_name_ + "'", e); }
    /// The active renderer's circles per tile (see Renderer::tile_loads);
    /// empty when it has no tiles or failed (then it fell back).
    TileLoads tile_loads();

private:
    /// Sets up renderer_ for scene_/size and advances it to `frame` frames.
    void setup(int frame);
    /// Reports `e` from `what` and falls back to the "cpu" renderer.
    void recover(const std::string& what, const std::exception& e);
    void record(const std::vector<StageTime>& times);

    SceneChoice choice_;
    Scene scene_;
    std::string scene_note_;
    std::unique_ptr<Renderer> renderer_;
    std::string renderer_name_;
    std::string timing_label_;
    int width_ = 0, height_ = 0;
    bool needs_frame_ = false;
    int image_version_ = 0;
    int setup_version_ = 0;
    int scene_version_ = 0;
    StageLog log_;
    TimingBoard board_;
    CheckResult check_;
    std::string message_;
    bool message_is_error_ = false;
};

}  // namespace cr::app
