// The ImGui control panel and the keyboard shortcuts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "session.h"

namespace cr::app {

class DisplayTexture;

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
};

/// How the image is drawn, for the panel and the --frames summary: "1:1",
/// or "at 41% (fit)" when scaled to fit the area (also with "1:1 pixels" on,
/// when the image is larger than the area); "-" before the first image.
std::string drawn_scale_label(double scale);

/// Builds the size choices 512, 1024, 2048 (plus the start size when it is
/// another one) and "window" ({0, 0}), and selects the start size.
void init_sizes(ViewState& v, int start_width, int start_height);

/// Selects a renderer from the panel or keys: GPU renderers without a CUDA
/// device are refused with the reason as a message.
void choose_renderer(Session& s, const std::string& name);

/// Draws the panel as a fixed window at the left, `width` pixels wide and
/// the window's height; applies what the user changes to `s` and `v`.
void draw_panel(Session& s, ViewState& v, DisplayTexture& display, float width);

/// Applies the keys pressed since the last frame (GLFW key codes, in order;
/// ignored while a text box has focus): Space play/pause, N step,
/// 1-9 renderer, C check vs cpuref, S save PNG, Esc quit.
void handle_keys(Session& s, ViewState& v, const std::vector<int>& pressed);

}  // namespace cr::app
