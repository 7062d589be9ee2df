#include "teaching_overlays.h"

#include <algorithm>
#include <cmath>

#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/renderer_factory.h"

namespace cr::app {

const char* tile_source_name(TileSource s) {
    switch (s) {
        case TileSource::Listed: return "listed";
        case TileSource::Hit: return "hit";
        case TileSource::Renderer: break;
    }
    return "renderer";
}

TileMap teaching_tile_map(const Scene& scene, int width, int height, TileSource source) {
    TileCounts c = tile_counts(scene, width, height, 16);
    TileMap m;
    for (size_t t = 0; t < c.hit.size(); ++t) {
        m.listed_pairs += c.listed.loads[t];
        m.hit_pairs += c.hit[t];
    }
    m.loads = std::move(c.listed);
    if (source == TileSource::Hit) m.loads.loads = std::move(c.hit);
    return m;
}

std::array<uint8_t, 3> warp_lane_color(float lanes) {
    const float t = std::min(1.f, std::max(0.f, (lanes - 1.f) / 31.f));
    const float r = t < .5f ? 1.f : 2.f * (1.f - t);
    const float g = t < .5f ? 2.f * t : 1.f - .2f * (t - .5f) * 2.f;
    return {static_cast<uint8_t>(255 * r), static_cast<uint8_t>(255 * g), 0};
}

std::vector<uint8_t> warp_map_rgba8(const WarpActivity& a) {
    std::vector<uint8_t> out(static_cast<size_t>(a.warps_x) * a.warps_y * 4, 0);
    for (int y = 0; y < a.warps_y; ++y)
        for (int x = 0; x < a.warps_x; ++x) {
            const float v = a.mean_active_lanes[static_cast<size_t>(y) * a.warps_x + x];
            if (v < 0) continue;
            const std::array<uint8_t, 3> c = warp_lane_color(v);
            uint8_t* px = &out[4 * (static_cast<size_t>(a.warps_y - 1 - y) * a.warps_x + x)];
            px[0] = c[0];
            px[1] = c[1];
            px[2] = c[2];
            px[3] = 255;
        }
    return out;
}

CoalescenceStats blends_needed(const Scene& scene, int width, int height) { return coalescence_stats(scene, width, height); }

std::array<uint8_t, 3> blends_color(float blends) {
    const float t = std::min(1.f, std::max(0.f, std::log2(std::max(1.f, blends)) / 8.f));  // 1 .. 256
    const std::array<float, 3> c = t < .5f ? std::array<float, 3>{2 * t, 0.f, 1.f - 2 * t}
                                           : std::array<float, 3>{1.f, 2 * (t - .5f), 0.f};
    return {static_cast<uint8_t>(255 * c[0]), static_cast<uint8_t>(255 * c[1]), static_cast<uint8_t>(255 * c[2])};
}

std::vector<uint8_t> blends_map_rgba8(const CoalescenceStats& s) {
    std::vector<uint8_t> out(static_cast<size_t>(s.width) * s.height * 4, 0);
    for (int j = 0; j < s.height; ++j)
        for (int i = 0; i < s.width; ++i) {
            const size_t src = static_cast<size_t>(j) * s.width + i;
            uint8_t* d = &out[(static_cast<size_t>(s.height - 1 - j) * s.width + i) * 4];
            if (s.covering[src] == 0) continue;  // transparent: nothing to blend
            const std::array<uint8_t, 3> c = blends_color(static_cast<float>(s.needed[src]));
            d[0] = c[0];
            d[1] = c[1];
            d[2] = c[2];
            d[3] = 255;
        }
    return out;
}

float mean_lanes(const WarpActivity& a) {
    double sum = 0;
    int n = 0;
    for (float v : a.mean_active_lanes)
        if (v >= 0) {
            sum += v;
            ++n;
        }
    return n ? static_cast<float>(sum / n) : 0.f;
}

OrderDemo make_order_demo(int size) {
    const auto scenes = order_demo_scenes();
    OrderDemo d;
    d.first_name = scenes.first.name;
    d.second_name = scenes.second.name;
    auto r = make_renderer("cpuref");
    d.in_order = render_last_frame(*r, scenes.first, size, size, 1);
    d.reversed = render_last_frame(*r, scenes.second, size, size, 1);
    d.difference = diff_heatmap(d.in_order, d.reversed, kStrictTolerance);
    for (int c = 0; c < 3; ++c) {
        d.in_order_rgb[c] = d.in_order.pixel(size / 2, size / 2)[c];
        d.reversed_rgb[c] = d.reversed.pixel(size / 2, size / 2)[c];
    }
    return d;
}

}  // namespace cr::app
