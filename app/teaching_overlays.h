// The numbers behind the teaching overlays (docs/KERNELS.md "From lecture to
// code"), computed on the CPU from the scene at the frame shown with
// render/teaching.h: circles per 16x16 tile listed by binning's box test or
// kept by the exact circle-tile test, active lanes per warp of the tiled
// kernel (in a background thread: it can take a second on big scenes), and
// the two-circle order demo. No GL here (the Viewer makes the textures).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "background_task.h"
#include "render/core/image.h"
#include "render/cpu/coalescence.h"
#include "render/teaching.h"
#include "scene_tracker.h"

namespace cr::app {

/// What the tile heat map counts.
enum class TileSource {
    Renderer,  ///< the renderer's own tile lists (Renderer::tile_loads)
    Listed,    ///< 16x16 tiles: circles whose bounding box overlaps (binning's conservative test)
    Hit,       ///< 16x16 tiles: circles passing the exact circle-tile test (what shading blends)
};

/// "renderer", "listed" or "hit".
const char* tile_source_name(TileSource s);

/// A tile map of TileSource::Listed or Hit and the totals of both.
struct TileMap {
    TileLoads loads;
    long long listed_pairs = 0;  ///< circle-tile pairs listed (all tiles)
    long long hit_pairs = 0;     ///< of those, pairs passing the exact test
};

/// The Listed or Hit map of `scene` (as it is at the frame shown) at width x height.
TileMap teaching_tile_map(const Scene& scene, int width, int height, TileSource source);

/// Colour of a warp whose mean active lanes are `lanes` (1..32): red (one
/// lane, most idle) -> yellow (16) -> green (32, no divergence).
std::array<uint8_t, 3> warp_lane_color(float lanes);

/// RGBA8 (top row first) of a warp map: warp_lane_color, transparent where
/// a tile blends no circle.
std::vector<uint8_t> warp_map_rgba8(const WarpActivity& a);

/// A per-frame map of the frame shown (T made by `Compute(scene, width,
/// height)`), computed in the background: at most one computation at a
/// time, a new one when the frame shown changed.
template <class T, T (*Compute)(const Scene&, int, int)>
class ShownFrameMap {
public:
    /// Starts computing the map of the session's frame shown when the last
    /// result is of another frame and nothing runs.
    void request(const Session& s, SceneTracker& tracker) {
        const Key key{s.scene_version(), s.frame(), s.width(), s.height()};
        if (task_.running() || (have_ && result_key_ == key) || s.width() <= 0 || s.height() <= 0) return;
        const Scene scene = tracker.at(s, s.frame());  // a copy the thread owns
        running_key_ = key;
        task_.start([scene, w = key.width, h = key.height] { return Compute(scene, w, h); });
    }
    /// True when a new result arrived since the last call.
    bool poll() {
        T a;
        if (!task_.poll(a)) return false;
        result_ = std::move(a);
        result_key_ = running_key_;
        have_ = true;
        return true;
    }
    bool running() const { return task_.running(); }
    double elapsed_seconds() const { return task_.elapsed_seconds(); }
    bool has_result() const { return have_; }
    const T& result() const { return result_; }
    /// The course's frame number the result is of.
    int result_frame() const { return result_key_.steps - 1; }

private:
    struct Key {
        int scene_version = -1, steps = -1, width = 0, height = 0;
        bool operator==(const Key& o) const {
            return scene_version == o.scene_version && steps == o.steps && width == o.width && height == o.height;
        }
    };
    BackgroundTask<T> task_;
    Key running_key_, result_key_;
    T result_;
    bool have_ = false;
};

/// The per-warp map of the frame shown.
using WarpMap = ShownFrameMap<WarpActivity, warp_activity>;

/// Mean active lanes over the warps that blend something (0 when none).
float mean_lanes(const WarpActivity& a);

/// The blends each pixel of the frame shown needs before its result is
/// certain (exact early stopping by coalescence, render/cpu/coalescence.h).
CoalescenceStats blends_needed(const Scene& scene, int width, int height);
using BlendsMap = ShownFrameMap<CoalescenceStats, blends_needed>;

/// Colour of a pixel that needs `blends` blends: blue (1) -> red (16) ->
/// yellow (256 or more), on a log scale.
std::array<uint8_t, 3> blends_color(float blends);

/// RGBA8 (top row first) of a blends map: blends_color of each pixel's
/// `needed`, transparent where no circle covers it.
std::vector<uint8_t> blends_map_rgba8(const CoalescenceStats& s);

/// The order demo: the same two circles blended in both orders (cpuref), the
/// heat map of their difference, and the color where they overlap.
struct OrderDemo {
    Image in_order, reversed, difference;
    float in_order_rgb[3] = {0, 0, 0}, reversed_rgb[3] = {0, 0, 0};  ///< at the image's center
    std::string first_name, second_name;  ///< the scenes' names
};

/// Renders the order demo at size x size pixels.
OrderDemo make_order_demo(int size);

}  // namespace cr::app
