// The panel's "Teaching" tab (see panel.h): the tile heat map's three
// sources, the per-warp active-lanes map and the two-circle order demo.
#include <imgui.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "panel.h"

namespace cr::app {

namespace {

void tile_section(ViewState& v) {
    ImGui::Checkbox("show circles per tile", &v.show_tiles);
    const std::pair<TileSource, const char*> sources[] = {{TileSource::Renderer, "renderer's tiles"},
                                                          {TileSource::Listed, "listed (16 px)"},
                                                          {TileSource::Hit, "hit (16 px)"}};
    for (const auto& [src, label] : sources) {
        if (src != TileSource::Renderer) ImGui::SameLine();
        if (ImGui::RadioButton(label, v.tile_source == src)) v.tile_source = src;
    }
    ImGui::TextWrapped(
        "listed: circles whose bounding box overlaps the tile (binning's conservative test). hit: of those, the "
        "circles the exact circle-tile test keeps - what the tile's block blends. renderer's tiles: the renderer's "
        "own lists (tiled, persistent, cpu).");
    if (!v.show_tiles) return;
    ImGui::SetNextItemWidth(140);
    ImGui::SliderFloat("tile opacity##teaching", &v.tile_opacity, 0.f, 1.f);
    tile_legend(v);
    if (!v.tile_totals.empty()) ImGui::TextWrapped("%s", v.tile_totals.c_str());
}

void warp_section(ViewState& v, const WarpMap& w) {
    ImGui::Checkbox("show active lanes per warp", &v.show_warps);
    ImGui::TextWrapped(
        "The tiled kernel's 16x16 tile is 64 threads of 4 rows each: warp 0 holds rows 0-7, warp 1 rows 8-15. For "
        "each circle the block blends, a lane is active when one of its 4 pixels is covered. 32 = no divergence.");
    if (!v.show_warps) return;
    ImGui::SetNextItemWidth(140);
    ImGui::SliderFloat("warp opacity", &v.warp_opacity, 0.f, 1.f);
    if (w.running())
        ImGui::TextColored(ImVec4(1.f, .85f, .3f, 1.f), "computing on the CPU (%.1f s) ...", w.elapsed_seconds());
    if (w.has_result())
        ImGui::Text("frame %d: %.1f of 32 lanes active on average (%d x %d warps)", w.result_frame(), mean_lanes(w.result()),
                    w.result().warps_x, w.result().warps_y);
    color_bar([](float t) {
                  const std::array<uint8_t, 3> c = warp_lane_color(1.f + 31.f * t);
                  return static_cast<unsigned>(IM_COL32(c[0], c[1], c[2], 255));
              },
              {{0.f, "1 lane"}, {.5f, "16"}, {1.f, "32 (all)"}});
}

void blends_section(ViewState& v, const BlendsMap& b) {
    ImGui::Checkbox("show blends needed per pixel", &v.show_blends);
    ImGui::TextWrapped(
        "An exact kernel can stop early: walking a pixel's circles from the last, two trajectories started at the "
        "lowest and highest value a pixel can hold meet after a few dozen blends, and then no earlier circle can "
        "change a bit. The map shows how many blends each pixel needed (all of them where it has few circles).");
    if (!v.show_blends) return;
    ImGui::SetNextItemWidth(140);
    ImGui::SliderFloat("blends opacity", &v.blends_opacity, 0.f, 1.f);
    if (b.running())
        ImGui::TextColored(ImVec4(1.f, .85f, .3f, 1.f), "computing on the CPU (%.1f s) ...", b.elapsed_seconds());
    if (b.has_result()) {
        const CoalescenceStats& s = b.result();
        ImGui::TextWrapped("frame %d: median %d blends needed (of %d covering); %.2f times fewer blends than cpuref's; "
                           "%lld pixels differ from cpuref's", b.result_frame(), percentile(s.needed, .5),
                           percentile(s.covering, .5), s.reduction(),
                           s.mismatches);
    }
    color_bar([](float t) {
                  const std::array<uint8_t, 3> c = blends_color(std::exp2(8.f * t));
                  return static_cast<unsigned>(IM_COL32(c[0], c[1], c[2], 255));
              },
              {{0.f, "1"}, {.5f, "16"}, {1.f, "256+"}});
}

void order_demo_section(const PanelTools& t) {
    const OrderDemo* d = t.order_demo;
    if (!d || !t.order_textures[0]) {
        ImGui::TextDisabled("(being made)");
        return;
    }
    const float side = (ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3;
    const char* labels[3] = {"red, then blue", "blue, then red", "difference"};
    for (int k = 0; k < 3; ++k) {
        if (k) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t.order_textures[k])), ImVec2(side, side));
        ImGui::TextDisabled("%s", labels[k]);
        ImGui::EndGroup();
    }
    color_swatch(d->in_order_rgb, ("overlap, red then blue: " + std::to_string(d->in_order_rgb[0]).substr(0, 5) + " " +
                                   std::to_string(d->in_order_rgb[1]).substr(0, 5) + " " +
                                   std::to_string(d->in_order_rgb[2]).substr(0, 5))
                                      .c_str());
    color_swatch(d->reversed_rgb, ("overlap, blue then red: " + std::to_string(d->reversed_rgb[0]).substr(0, 5) + " " +
                                   std::to_string(d->reversed_rgb[1]).substr(0, 5) + " " +
                                   std::to_string(d->reversed_rgb[2]).substr(0, 5))
                                      .c_str());
    ImGui::TextWrapped(
        "Each blend keeps half of what is there: the circle drawn last dominates. Blending is not commutative, so a "
        "renderer must blend every pixel's circles in input order (magenta: beyond 1e-4).");
}

}  // namespace

void teaching_tab(Session& s, ViewState& v, PanelTools& t) {
    (void)s;
    if (ImGui::CollapsingHeader("Tile heat map", ImGuiTreeNodeFlags_DefaultOpen)) tile_section(v);
    if (ImGui::CollapsingHeader("Warp map (divergence)", ImGuiTreeNodeFlags_DefaultOpen)) warp_section(v, t.warps);
    if (ImGui::CollapsingHeader("Blends needed (exact, early)", v.show_blends ? ImGuiTreeNodeFlags_DefaultOpen : 0))
        blends_section(v, t.blends);
    if (ImGui::CollapsingHeader("Order demo", ImGuiTreeNodeFlags_DefaultOpen)) order_demo_section(t);
}

}  // namespace cr::app
