#include "panel.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "image_view.h"
#include "interop.h"
#include "render/compare.h"
#include "render/renderer_factory.h"
#include "workbench.h"
#include "scenes/scene.h"

namespace cr::app {

std::string drawn_scale_label(double scale, bool zoomed) {
    if (scale <= 0) return "-";
    if (std::fabs(scale - 1.0) < 1e-9) return "1:1";
    char buf[64];
    std::snprintf(buf, sizeof buf, zoomed ? "at %.0f%% (zoomed)" : "at %.0f%% (fit)", 100 * scale);
    return buf;
}

void init_sizes(ViewState& v, int start_width, int start_height) {
    v.sizes = {{512, 512}, {1024, 1024}, {2048, 2048}};
    const std::pair<int, int> start{start_width, start_height};
    if (start.first > 0 && std::find(v.sizes.begin(), v.sizes.end(), start) == v.sizes.end()) {
        v.sizes.push_back(start);
        std::sort(v.sizes.begin(), v.sizes.end());
    }
    v.sizes.push_back({0, 0});
    const auto it = std::find(v.sizes.begin(), v.sizes.end(), start);
    v.size_index = static_cast<int>(it - v.sizes.begin());
}

std::vector<RendererInfo> switchable_renderers() {
    std::vector<RendererInfo> out;
    for (const auto& i : renderer_infos())
        if (i.name != "student") out.push_back(i);
    return out;
}

namespace {

std::string size_label(const std::pair<int, int>& s) {
    if (s.first == 0) return "follow window";
    return std::to_string(s.first) + " x " + std::to_string(s.second);
}

/// The demo kernel that races on purpose (RendererInfo has no flag for it).
bool incorrect_demo(const RendererInfo& info) { return info.incorrect_by_design; }

std::string renderer_label(size_t index, const RendererInfo& info) {
    std::string label = std::to_string(index + 1) + " " + info.name;
    if (incorrect_demo(info)) label += " (demo)";  // drawn in orange; the tooltip says INCORRECT
    return label;
}


/// Starts a borderless table of `columns` for label/value rows: cells clip
/// instead of wrapping, so numbers are never split over two lines.
bool begin_value_table(const char* id, int columns) {
    return ImGui::BeginTable(id, columns, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_NoPadOuterX);
}

/// snowsingle's particle file: a path field and Load ("" = ./snow.par when it
/// exists, else the generated stand-in; render/scene_source.h decides).
void particles_field(Session& s, ViewState& v) {
    ImGui::SetNextItemWidth(200);
    const bool enter = ImGui::InputText("snow.par", &v.particles_path, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Load##particles") || enter) {
        SceneChoice c;
        c.name = "snowsingle";
        c.particles = v.particles_path;
        c.seed = static_cast<uint32_t>(v.seed);
        s.set_scene(c);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("a particle file in the course's format; empty: ./snow.par if present");
}

void scene_section(Session& s, ViewState& v) {
    const auto& names = scene_names();
    const int file_index = static_cast<int>(names.size());
    const std::string current = v.scene_index == file_index ? "load scene file" : names[static_cast<size_t>(v.scene_index)];
    ImGui::SetNextItemWidth(170);
    if (ImGui::BeginCombo("scene", current.c_str())) {
        for (int i = 0; i <= file_index; ++i) {
            const std::string label = i == file_index ? "load scene file" : names[static_cast<size_t>(i)];
            if (ImGui::Selectable(label.c_str(), i == v.scene_index) && i != v.scene_index) {
                v.scene_index = i;
                if (i != file_index) {
                    SceneChoice c;
                    c.name = label;
                    c.particles = label == "snowsingle" ? v.particles_path : "";
                    c.seed = static_cast<uint32_t>(v.seed);
                    s.set_scene(c);
                }
            }
        }
        ImGui::EndCombo();
    }
    if (v.scene_index == file_index) {
        const bool enter = ImGui::InputText("path", &v.scene_path, ImGuiInputTextFlags_EnterReturnsTrue);
        ImGui::SameLine();
        if ((ImGui::Button("Load") || enter) && !v.scene_path.empty()) {
            SceneChoice c;
            c.from_file = true;
            c.path = v.scene_path;
            s.set_scene(c);
        }
    } else {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(110);
        if (ImGui::InputInt("seed", &v.seed, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue)) {
            v.seed = std::max(v.seed, 0);
            SceneChoice c;
            c.name = names[static_cast<size_t>(v.scene_index)];
            c.particles = c.name == "snowsingle" ? v.particles_path : "";
            c.seed = static_cast<uint32_t>(v.seed);
            s.set_scene(c);
        }
    }
    if (v.scene_index != file_index && names[static_cast<size_t>(v.scene_index)] == "snowsingle") particles_field(s, v);
    ImGui::SetNextItemWidth(170);
    if (ImGui::BeginCombo("size", size_label(v.sizes[static_cast<size_t>(v.size_index)]).c_str())) {
        for (size_t i = 0; i < v.sizes.size(); ++i)
            if (ImGui::Selectable(size_label(v.sizes[i]).c_str(), int(i) == v.size_index)) {
                v.size_index = static_cast<int>(i);
                if (v.sizes[i].first > 0) s.set_size(v.sizes[i].first, v.sizes[i].second);
                // "follow window" is applied by the main loop every frame
            }
        ImGui::EndCombo();
    }
    const SceneChoice& c = s.scene_choice();
    ImGui::TextDisabled("%s: %zu circles, rendering %d x %d",
                        c.from_file ? c.path.c_str() : (c.name + " seed " + std::to_string(c.seed)).c_str(),
                        s.scene().count(), s.width(), s.height());
    if (!s.scene_note().empty()) ImGui::TextWrapped("%s", s.scene_note().c_str());  // where the flakes came from
}

void renderer_section(Session& s, ViewState& v) {
    const auto infos = switchable_renderers();
    // Columns as wide as their labels (not a third of the panel each): "7 unordered (demo)" is never cut off.
    if (ImGui::BeginTable("renderers", 3, ImGuiTableFlags_SizingFixedFit)) {
        for (size_t i = 0; i < infos.size(); ++i) {
            const RendererInfo& info = infos[i];
            const bool off = info.needs_gpu && !v.cuda_ok;
            ImGui::TableNextColumn();
            ImGui::BeginDisabled(off);
            if (incorrect_demo(info)) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, .55f, .3f, 1.f));
            if (ImGui::RadioButton(renderer_label(i, info).c_str(), s.renderer_name() == info.name) &&
                s.renderer_name() != info.name)
                choose_renderer(s, info.name);
            if (incorrect_demo(info)) ImGui::PopStyleColor();
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("%s%s%s", info.description.c_str(), off ? "\nunavailable: " : "",
                                  off ? v.cuda_why.c_str() : "");
        }
        ImGui::EndTable();
    }
    if (!v.cuda_ok) ImGui::TextWrapped("GPU renderers off: %s", v.cuda_why.c_str());
}

void playback_section(Session& s, ViewState& v) {
    if (ImGui::Button(v.playing ? "Pause (Space)" : "Play (Space)")) v.playing = !v.playing;
    ImGui::SameLine();
    if (ImGui::Button("Step (N)")) v.step_requested = true;
    ImGui::SameLine();
    if (ImGui::Button("Restart")) s.restart();
    if (begin_value_table("rates", 3)) {
        ImGui::TableNextColumn();
        // frame() counts advance steps; the course's frame 0 already had one.
        ImGui::Text("frame %d", std::max(s.frame() - 1, 0));
        ImGui::TableNextColumn();
        ImGui::Text("%.1f frames/s rendered", v.render_fps);
        ImGui::TableNextColumn();
        ImGui::Text("%.1f FPS window", v.display_fps);
        ImGui::EndTable();
    }
    ImGui::Checkbox("vsync", &v.vsync);
    ImGui::SameLine();
    ImGui::Checkbox("1:1 when it fits", &v.pixel_exact);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Draw the image unscaled when it fits the window; a larger one is scaled to fit (or zoom to 1:1)");
    ImGui::SameLine();
    ImGui::TextDisabled("drawn %s", drawn_scale_label(v.drawn_scale, v.zoom.zoom != 1).c_str());
}

void display_section(DisplayTexture& d, ViewState& v) {
    if (v.cuda_ok) {
        bool allow = d.interop_allowed();
        if (ImGui::Checkbox("CUDA-GL interop", &allow)) d.set_interop_allowed(allow);
    }
    ImGui::TextWrapped("display: %s", d.path().empty() ? "-" : d.path().c_str());
}

/// Sparkline of one stage's history, as wide as the table cell.
void stage_sparkline(const StageSeries& st) {
    const int n = st.filled;
    const int offset = n < StageSeries::kHistory ? 0 : st.next;
    float top = 0;
    for (int k = 0; k < n; ++k) top = std::max(top, st.history[static_cast<size_t>(k)]);
    ImGui::PlotLines(("##plot_" + st.name).c_str(), st.history.data(), n, offset, nullptr, 0.f,
                     top > 0 ? top * 1.1f : 1.f, ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetTextLineHeight()));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s over the last %d frames: max %.3f ms", st.name.c_str(), n, top);
}

/// One row of the stage table.
void stage_row(const StageSeries& st, const FrameTimes& mean) {
    double m = 0;
    for (const auto& x : mean.stages)
        if (x.name == st.name) m = x.ms;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(st.name.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(st.course.empty() ? "-" : st.course.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", st.last_ms);
    ImGui::TableNextColumn();
    ImGui::Text("%.3f", m);
    ImGui::TableNextColumn();
    stage_sparkline(st);
}

/// A row naming whose stages follow and how they were timed.
void stage_group_row(const std::string& who, const std::string& method) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(ImVec4(.55f, .8f, 1.f, 1.f), "%s", who.c_str());
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", method.c_str());
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(method == "course method" ? "the host clock around each call of yours, each followed by "
                                                      "cudaDeviceSynchronize(), as the course times"
                                                    : "how these stages are timed");
}

void stages_section(const Session& s, const Workbench& bench) { stage_table(s, bench); }

/// The course's four lines of the reference and of the student's renderer.
void course_lines_table(const std::string& reference, const FrameTimes& ref, const FrameTimes& student) {
    if (!ImGui::BeginTable("course_lines", 5, ImGuiTableFlags_SizingStretchProp)) return;
    for (const char* h : {"mean ms", "Clear", "Advance", "Render", "Total"}) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", h);
    }
    const auto row = [](const std::string& who, const FrameTimes& m) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(who.c_str());
        for (double v : {m.clear_ms, m.advance_ms, m.render_ms, m.total_ms}) {
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", v);
        }
    };
    row(reference, ref);
    row("student", student);
    ImGui::EndTable();
}

}  // namespace

void stage_table(const Session& s, const Workbench& bench) {
    const FrameTimes mean = mean_of(s.stage_sums());
    const StudentLane& lane = bench.lane();
    const bool student = !lane.stages().empty();
    ImGui::Text("stage times (ms), mean over %d frames", mean.counted);
    constexpr ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("stages", 5, flags)) {
        ImGui::TableSetupColumn("stage");
        ImGui::TableSetupColumn("course");
        ImGui::TableSetupColumn("last");
        ImGui::TableSetupColumn("mean");
        ImGui::TableSetupColumn("history", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        if (student) stage_group_row(s.renderer_name(), s.timing_label());
        for (const StageSeries& st : s.stages()) stage_row(st, mean);
        if (student) {
            const FrameTimes sm = mean_of(lane.stage_sums());
            stage_group_row("student", "course method");
            for (const StageSeries& st : lane.stages()) stage_row(st, sm);
        }
        ImGui::EndTable();
    }
    if (!student) {
        ImGui::Text("Clear %.3f  Advance %.3f  Render %.3f  Total %.3f", mean.clear_ms, mean.advance_ms,
                    mean.render_ms, mean.total_ms);
        return;
    }
    course_lines_table(s.renderer_name(), mean, mean_of(lane.stage_sums()));
}

namespace {

ImU32 to_u32(float r, float g, float b) { return ImGui::GetColorU32(ImVec4(r, g, b, 1.f)); }

}  // namespace

void color_bar(const std::function<unsigned(float)>& colour, const std::vector<std::pair<float, std::string>>& ticks) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = 9.f;
    constexpr int kSteps = 96;
    for (int i = 0; i < kSteps; ++i)
        dl->AddRectFilled(ImVec2(p.x + w * i / kSteps, p.y), ImVec2(p.x + w * (i + 1) / kSteps, p.y + h),
                          colour((i + .5f) / kSteps));
    for (const auto& [t, label] : ticks) {
        const float tw = ImGui::CalcTextSize(label.c_str()).x;
        const float x = std::min(std::max(p.x + t * w - tw / 2, p.x), p.x + w - tw);
        dl->AddText(ImVec2(x, p.y + h + 1), ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
    }
    ImGui::Dummy(ImVec2(w, h + 1 + ImGui::GetTextLineHeight()));
}

void color_swatch(ImU32 colour, const char* label, bool border) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float side = ImGui::GetTextLineHeight() - 2;
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 1), ImVec2(p.x + side, p.y + 1 + side), colour);
    if (border)
        ImGui::GetWindowDrawList()->AddRect(ImVec2(p.x, p.y + 1), ImVec2(p.x + side, p.y + 1 + side),
                                            ImGui::GetColorU32(ImGuiCol_Border));
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine();
    ImGui::TextUnformatted(label);
}

void color_swatch(const float* c, const char* label) { color_swatch(to_u32(c[0], c[1], c[2]), label); }

namespace {

/// The diff overlay's legend: cr::diff_heat_color over its log scale.
void diff_legend(float tolerance) {
    color_swatch(to_u32(0, 0, 0), "0 (equal)", /*border=*/false);
    ImGui::SameLine();
    const std::array<float, 3> beyond = diff_heat_color(1.f, 0.f);
    color_swatch(to_u32(beyond[0], beyond[1], beyond[2]), ("beyond " + rule_name(tolerance)).c_str(), /*border=*/false);
    color_bar([tolerance](float t) {
                  const std::array<float, 3> c = diff_heat_color(std::pow(10.f, 6.f * t - 6.f), tolerance);
                  return to_u32(c[0], c[1], c[2]);
              },
              {{0.f, "|error| 1e-6"}, {1.f / 3, "1e-4"}, {2.f / 3, "1e-2"}, {1.f, "1 (log)"}});
}

}  // namespace

void tile_legend(const ViewState& v) {
    if (v.tile_max <= 0) {
        ImGui::TextDisabled("%s", v.tiles_note.c_str());
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s; circles per tile, empty tiles clear:", v.tiles_note.c_str());
    ImGui::PopStyleColor();
    color_bar([](float t) {
                  const std::array<uint8_t, 3> c = tile_heat_color(t);
                  return IM_COL32(c[0], c[1], c[2], 255);
              },
              {{0.f, "1"}, {.5f, std::to_string((v.tile_max + 1) / 2)}, {1.f, std::to_string(v.tile_max) + " (max)"}});
}

namespace {

/// The last check's figures in a table (numbers never wrap).
void check_table(const CheckResult& c) {
    const CompareStats& st = c.stats;
    ImGui::TextColored(st.pass ? ImVec4(.4f, 1.f, .4f, 1.f) : ImVec4(1.f, .4f, .4f, 1.f), "%s: %s at frame %d%s",
                       c.renderer.c_str(), st.pass ? "MATCHES cpuref" : "DIFFERS from cpuref",
                       std::max(c.frame - 1, 0), c.incorrect_by_design ? " (incorrect by design)" : "");
    if (!st.same_size) {
        ImGui::TextUnformatted("image sizes differ");
        return;
    }
    if (!begin_value_table("check", 4)) return;
    const auto row = [](const char* a, const std::string& av, const char* b, const std::string& bv) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", a);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(av.c_str());
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", b);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(bv.c_str());
    };
    char max_err[32], mean_err[32], psnr[32];
    std::snprintf(max_err, sizeof max_err, "%.3g", st.max_abs_error);
    std::snprintf(mean_err, sizeof mean_err, "%.3g", st.mean_abs_error);
    std::snprintf(psnr, sizeof psnr, "%.1f dB", st.psnr_db);
    row("max error", max_err, "mean error", mean_err);
    row("pixels > 1e-4", std::to_string(st.mismatches_strict), "pixels > 0.1", std::to_string(st.mismatches_course));
    row("PSNR", psnr, "decided by", rule_name(st.tolerance) + ", " + std::to_string(kAllowedMismatches) + " allowed");
    ImGui::EndTable();
}

void check_section(Session& s, ViewState& v) {
    if (ImGui::Button("Check vs cpuref (C)")) s.run_check();
    ImGui::SameLine();
    if (ImGui::Button("Save PNG (S)")) s.save_png();
    const CheckResult& c = s.check();
    if (c.valid) check_table(c);
    else v.show_diff = false;
    ImGui::TextUnformatted("heat maps:");
    ImGui::SameLine();
    ImGui::BeginDisabled(!c.valid);
    ImGui::Checkbox("diff vs cpuref", &v.show_diff);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Checkbox("circles per tile", &v.show_tiles);
    if (v.show_diff) {
        ImGui::SetNextItemWidth(140);
        ImGui::SliderFloat("diff opacity", &v.diff_opacity, 0.f, 1.f);
        diff_legend(c.stats.tolerance);
    }
    if (v.show_tiles) {
        ImGui::SetNextItemWidth(140);
        ImGui::SliderFloat("tile opacity", &v.tile_opacity, 0.f, 1.f);
        if (v.tile_source != TileSource::Renderer) {
            ImGui::SameLine();
            ImGui::TextDisabled("(%s: see Teaching)", tile_source_name(v.tile_source));
        }
        tile_legend(v);
    }
}

}  // namespace

void choose_renderer(Session& s, const std::string& name) {
    for (const auto& info : renderer_infos())
        if (info.name == name && info.needs_gpu) {
            std::string why;
            if (!cuda_device_available(&why)) {
                s.notify("renderer '" + name + "' needs a CUDA GPU: " + why, true);
                return;
            }
        }
    s.set_renderer(name);
}

namespace {

/// The "Viewer" tab: scene, renderer, playback, check and overlays, stages.
void viewer_tab(Session& s, ViewState& v, DisplayTexture& display, PanelTools& t) {
    if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) scene_section(s, v);
    if (ImGui::CollapsingHeader("Renderer", ImGuiTreeNodeFlags_DefaultOpen)) {
        renderer_section(s, v);
        display_section(display, v);
    }
    if (ImGui::CollapsingHeader("Playback", ImGuiTreeNodeFlags_DefaultOpen)) playback_section(s, v);
    if (ImGui::CollapsingHeader("Check and overlays", ImGuiTreeNodeFlags_DefaultOpen)) check_section(s, v);
    if (ImGui::CollapsingHeader("Stage times", ImGuiTreeNodeFlags_DefaultOpen)) stages_section(s, t.bench);
}

/// The "?" at the end of the tab bar: the keys and the mouse, as a tooltip.
void help_tab_button() {
    ImGui::TabItemButton("?", ImGuiTabItemFlags_Trailing | ImGuiTabItemFlags_NoTooltip);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("keys: Space play/pause, N step, 1-%zu renderer, C check, S save PNG, Esc quit\n"
                          "mouse on the image: wheel zooms, drag pans, click (or hold Shift) inspects a pixel",
                          switchable_renderers().size());
}

/// Begins tab `tab` (selected when the main loop asked for it).
bool begin_tab(const char* label, PanelTab tab, const ViewState& v) {
    const bool select = v.tab_request == static_cast<int>(tab);
    return ImGui::BeginTabItem(label, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0);
}

}  // namespace

void draw_panel(Session& s, ViewState& v, DisplayTexture& display, PanelTools& tools, float width) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(width, io.DisplaySize.y), ImGuiCond_Always);
    ImGui::Begin("circle-renderer", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings);
    if (!s.message().empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, s.is_error() ? ImVec4(1.f, .45f, .45f, 1.f) : ImVec4(.6f, 1.f, .6f, 1.f));
        ImGui::TextWrapped("%s", s.message().c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("dismiss")) s.clear_message();
        ImGui::Separator();
    }
    if (ImGui::BeginTabBar("tabs")) {
        help_tab_button();
        if (begin_tab("Viewer", PanelTab::Viewer, v)) {
            viewer_tab(s, v, display, tools);
            ImGui::EndTabItem();
        }
        if (begin_tab("Your renderer", PanelTab::Workbench, v)) {
            workbench_tab(s, v, tools);
            ImGui::EndTabItem();
        }
        if (begin_tab("Teaching", PanelTab::Teaching, v)) {
            teaching_tab(s, v, tools);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    v.tab_request = -1;
    // What the content needs (bottom of the last item plus the padding) and
    // what the window has: more means the bottom is cut off (it scrolls).
    const ImGuiStyle& style = ImGui::GetStyle();
    v.panel_content_height = ImGui::GetCursorPosY() - style.ItemSpacing.y + style.WindowPadding.y;
    v.panel_height = ImGui::GetWindowHeight();
    ImGui::End();
}

void handle_keys(Session& s, ViewState& v, const std::vector<int>& pressed) {
    if (ImGui::GetIO().WantTextInput) return;
    const auto infos = switchable_renderers();
    for (const int key : pressed) {
        if (key == GLFW_KEY_SPACE) v.playing = !v.playing;
        else if (key == GLFW_KEY_N) v.step_requested = true;
        else if (key == GLFW_KEY_C) s.run_check();
        else if (key == GLFW_KEY_S) s.save_png();
        else if (key == GLFW_KEY_ESCAPE) v.quit = true;
        else if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) {
            const size_t i = static_cast<size_t>(key - GLFW_KEY_1);
            if (i < infos.size() && s.renderer_name() != infos[i].name) choose_renderer(s, infos[i].name);
        }
    }
}

}  // namespace cr::app
