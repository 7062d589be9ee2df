// The ImGui control panel and the keyboard shortcuts.
#pragma once

#include <imgui.h>  // ImU32

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "image_view.h"
#include "render/renderer_factory.h"
#include "session.h"
#include "teaching_overlays.h"

namespace cr::app {

class DisplayTexture;
class Workbench;
class Inspector;

/// The panel's tabs.
enum class PanelTab { Viewer, Workbench, Teaching };

/// How the workbench shows the student's image and the reference's.
enum class CompareView { SideBySide, Student, Reference, Diff };

/// View settings the panel and keys edit and the main loop applies.
struct ViewState {
    bool playing = true;
    bool step_requested = false;    ///< render one frame even when paused
    bool quit = false;
    bool pixel_exact = false;       ///< draw the image 1:1 when it fits
    bool show_diff = false;         ///< diff heat-map of the last check over the image
    float diff_opacity = 1.f;
    bool show_tiles = false;        ///< circles-per-tile heat-map over the image
    float tile_opacity = .6f;
    bool vsync = true;
    std::vector<std::pair<int, int>> sizes;  ///< render size choices; {0, 0} = follow the window
    int size_index = 0;             ///< into sizes
    int scene_index = 0;            ///< into cr::scene_names(); == size of it: scene file
    std::string scene_path;         ///< the scene file path text box
    std::string particles_path;     ///< snowsingle's particle file text box ("" = ./snow.par when it exists)
    int seed = 0;
    double display_fps = 0;         ///< window frames per second
    double render_fps = 0;          ///< rendered frames per second
    bool cuda_ok = false;           ///< a CUDA device is usable
    std::string cuda_why;           ///< why not, when !cuda_ok
    std::string tiles_note;         ///< tile overlay status, set by the main loop
    int tile_max = -1;              ///< circles in the busiest tile (legend scale); -1: no tiles
    double drawn_scale = 0;         ///< image pixels drawn per rendered pixel this frame (1 = 1:1)
    float panel_height = 0;         ///< the panel's height, window units
    float panel_content_height = 0; ///< the height its content needs (more: cut off, scrolls)

    // ---- the student's workbench and the teaching overlays --------------
    int tab_request = -1;           ///< a PanelTab to select on the next frame (-1: none)
    std::string student_folder;     ///< the folder text box
    CompareView compare_view = CompareView::SideBySide;
    bool pause_on_mismatch = false; ///< pause at the first frame that fails pause_rule
    bool pause_rule_course = false; ///< the rule: course (0.1) instead of strict (1e-4)
    std::string paused_note;        ///< why playback paused itself ("" when it did not)
    float student_diff_opacity = .7f;
    int sanitize_tool = 0;            ///< the workbench's sanitizer: memcheck, racecheck, synccheck, initcheck
    ZoomPan zoom;                   ///< the image view's zoom and pan
    bool request_one_to_one = false;  ///< the panel asked for a 1:1 view (the main loop applies it)
    bool request_fit = false;       ///< the panel asked to fit the image again
    TileSource tile_source = TileSource::Renderer;
    std::string tile_totals;        ///< listed/hit pairs of the tile map shown ("" for the renderer's)
    bool show_warps = false;        ///< the per-warp active-lanes map over the image
    float warp_opacity = .6f;
    bool show_blends = false;       ///< the blends each pixel needs before its result is certain
    float blends_opacity = .8f;
};

/// What the workbench and teaching tabs show beyond the session.
struct PanelTools {
    Workbench& bench;
    Inspector& inspector;
    const WarpMap& warps;
    const BlendsMap& blends;
    /// The order demo's three textures (0 until made) and its numbers.
    GLuint order_textures[3] = {0, 0, 0};
    const OrderDemo* order_demo = nullptr;
};

/// How the image is drawn, for the panel and the --frames summary: "1:1",
/// or "at 41% (fit)" when scaled to fit the area (also with "1:1 when it fits" on,
/// when the image is larger than the area), "at 800% (zoomed)" when
/// `zoomed` (wheel, --zoom); "-" before the first image.
std::string drawn_scale_label(double scale, bool zoomed = false);

/// Builds the size choices 512, 1024, 2048 (plus the start size when it is
/// another one) and "window" ({0, 0}), and selects the start size.
void init_sizes(ViewState& v, int start_width, int start_height);

/// The renderers the panel's list and keys 1-9 switch between: every one
/// but `student`, which needs a folder (the "Your renderer" tab loads it).
std::vector<RendererInfo> switchable_renderers();

/// Selects a renderer from the panel or keys: GPU renderers without a CUDA
/// device are refused with the reason as a message.
void choose_renderer(Session& s, const std::string& name);

/// Draws the panel as a fixed window at the left, `width` pixels wide and
/// the window's height; applies what the user changes to `s` and `v`.
void draw_panel(Session& s, ViewState& v, DisplayTexture& display, PanelTools& tools, float width);

/// The "Your renderer" tab: folder, status, compiler messages, compare,
/// faults, the pixel inspector and the timings (workbench_panel.cpp).
void workbench_tab(Session& s, ViewState& v, PanelTools& t);

/// The pixel inspector's part of the "Your renderer" tab: the zoom buttons,
/// the pixel, its expected and student colors and its story (inspector_panel.cpp).
void inspector_section(Session& s, ViewState& v, PanelTools& t);

/// A bar chart of the mean Clear/Advance/Render times of every renderer run
/// in this session (stacked bars, one per renderer, scene and size).
void timing_chart(const TimingBoard& board);

/// The "Teaching" tab: tile heat map (renderer / listed / hit), the warp
/// map, the order demo (teaching_panel.cpp).
void teaching_tab(Session& s, ViewState& v, PanelTools& t);

/// The stage table: the session renderer's stages and, when the student's
/// renderer runs, its stages (course method), each labelled with how it was
/// timed.
void stage_table(const Session& s, const Workbench& bench);

/// The tile overlay's legend (circles per tile, 1 .. the busiest tile).
void tile_legend(const ViewState& v);

/// A colour bar as wide as the panel: colour(t) for t from 0 (left) to 1
/// (right), with the (t, label) ticks written under it.
void color_bar(const std::function<unsigned(float)>& colour, const std::vector<std::pair<float, std::string>>& ticks);

/// A small filled square of `colour` (IM_COL32 or ImGui::GetColorU32)
/// followed by `label` on the same line; `border` outlines the square in
/// the style's border colour.
void color_swatch(ImU32 colour, const char* label, bool border = true);

/// color_swatch of RGB `c` (each 0..1, opaque), with the border.
void color_swatch(const float* c, const char* label);

/// Applies the keys pressed since the last frame (GLFW key codes, in order;
/// ignored while a text box has focus): Space play/pause, N step,
/// 1-9 renderer, C check vs cpuref, S save PNG, Esc quit.
void handle_keys(Session& s, ViewState& v, const std::vector<int>& pressed);

}  // namespace cr::app
