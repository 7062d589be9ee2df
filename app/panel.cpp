#include "panel.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>

#include "interop.h"
#include "render/renderer_factory.h"
#include "scenes/scene.h"

namespace cr::app {

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

namespace {

std::string size_label(const std::pair<int, int>& s) {
    if (s.first == 0) return "follow window";
    return std::to_string(s.first) + " x " + std::to_string(s.second);
}

/// The demo kernel that races on purpose (RendererInfo has no flag for it).
bool incorrect_demo(const RendererInfo& info) { return info.incorrect_by_design; }

std::string renderer_label(size_t index, const RendererInfo& info) {
    std::string label = std::to_string(index + 1) + "  " + info.name;
    if (incorrect_demo(info)) label += "  (INCORRECT demo)";
    return label;
}

/// snowsingle's particle file: a path field and Load ("" = ./snow.par when it
/// exists, else the generated stand-in; render/scene_source.h decides).
void particles_field(Session& s, ViewState& v) {
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
    } else if (ImGui::InputInt("seed", &v.seed, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue)) {
        v.seed = std::max(v.seed, 0);
        SceneChoice c;
        c.name = names[static_cast<size_t>(v.scene_index)];
        c.particles = c.name == "snowsingle" ? v.particles_path : "";
        c.seed = static_cast<uint32_t>(v.seed);
        s.set_scene(c);
    }
    if (v.scene_index != file_index && names[static_cast<size_t>(v.scene_index)] == "snowsingle") particles_field(s, v);
    const SceneChoice& c = s.scene_choice();
    ImGui::TextDisabled("showing %s, %zu circles", c.from_file ? c.path.c_str() : (c.name + " seed " + std::to_string(c.seed)).c_str(),
                        s.scene().count());
    if (!s.scene_note().empty()) ImGui::TextWrapped("%s", s.scene_note().c_str());  // where the flakes came from

    if (ImGui::BeginCombo("size", size_label(v.sizes[static_cast<size_t>(v.size_index)]).c_str())) {
        for (size_t i = 0; i < v.sizes.size(); ++i)
            if (ImGui::Selectable(size_label(v.sizes[i]).c_str(), int(i) == v.size_index)) {
                v.size_index = static_cast<int>(i);
                if (v.sizes[i].first > 0) s.set_size(v.sizes[i].first, v.sizes[i].second);
                // "follow window" is applied by the main loop every frame
            }
        ImGui::EndCombo();
    }
    ImGui::TextDisabled("rendering %d x %d", s.width(), s.height());
}

void renderer_section(Session& s, ViewState& v) {
    const auto& infos = renderer_infos();
    for (size_t i = 0; i < infos.size(); ++i) {
        const RendererInfo& info = infos[i];
        const bool off = info.needs_gpu && !v.cuda_ok;
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
    if (!v.cuda_ok) ImGui::TextWrapped("GPU renderers off: %s", v.cuda_why.c_str());
}

void playback_section(Session& s, ViewState& v) {
    if (ImGui::Button(v.playing ? "Pause (Space)" : "Play (Space)")) v.playing = !v.playing;
    ImGui::SameLine();
    if (ImGui::Button("Step (N)")) v.step_requested = true;
    ImGui::SameLine();
    if (ImGui::Button("Restart")) s.restart();
    // frame() counts advance steps; the course's frame 0 already had one.
    ImGui::Text("frame %d   %.1f frames/s rendered   %.1f FPS window", std::max(s.frame() - 1, 0),
                v.render_fps, v.display_fps);
    ImGui::Checkbox("vsync", &v.vsync);
    ImGui::SameLine();
    ImGui::Checkbox("1:1 pixels", &v.pixel_exact);
}

void display_section(DisplayTexture& d, ViewState& v) {
    if (v.cuda_ok) {
        bool allow = d.interop_allowed();
        if (ImGui::Checkbox("CUDA-GL interop", &allow)) d.set_interop_allowed(allow);
    }
    ImGui::TextWrapped("display: %s", d.path().empty() ? "-" : d.path().c_str());
}

void stages_section(const Session& s) {
    const FrameTimes mean = mean_of(s.stage_sums());
    ImGui::Text("stage times (ms), mean over %d frames", mean.counted);
    if (ImGui::BeginTable("stages", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("stage");
        ImGui::TableSetupColumn("course");
        ImGui::TableSetupColumn("last");
        ImGui::TableSetupColumn("mean");
        ImGui::TableHeadersRow();
        for (const StageSeries& st : s.stages()) {
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
        }
        ImGui::EndTable();
    }
    ImGui::Text("Clear %.3f  Advance %.3f  Render %.3f  Total %.3f", mean.clear_ms, mean.advance_ms,
                mean.render_ms, mean.total_ms);
    for (const StageSeries& st : s.stages()) {
        const int n = st.filled;
        const int offset = n < StageSeries::kHistory ? 0 : st.next;
        float top = 0;
        for (int k = 0; k < n; ++k) top = std::max(top, st.history[static_cast<size_t>(k)]);
        char overlay[64];
        std::snprintf(overlay, sizeof overlay, "%s  max %.3f ms", st.name.c_str(), top);
        ImGui::PlotLines(("##plot_" + st.name).c_str(), st.history.data(), n, offset, overlay, 0.f,
                         top > 0 ? top * 1.1f : 1.f, ImVec2(ImGui::GetContentRegionAvail().x, 38));
    }
}

void check_section(Session& s, ViewState& v) {
    if (ImGui::Button("Check vs cpuref (C)")) s.run_check();
    ImGui::SameLine();
    if (ImGui::Button("Save PNG (S)")) s.save_png();
    const CheckResult& c = s.check();
    if (c.valid) {
        const bool pass = c.stats.pass;
        ImGui::TextColored(pass ? ImVec4(.4f, 1.f, .4f, 1.f) : ImVec4(1.f, .4f, .4f, 1.f),
                           "%s: %s at frame %d%s", c.renderer.c_str(), pass ? "MATCHES cpuref" : "DIFFERS from cpuref",
                           std::max(c.frame - 1, 0), c.incorrect_by_design ? " (incorrect by design)" : "");
        ImGui::TextWrapped("%s", c.summary.c_str());
        ImGui::Checkbox("diff heat-map overlay", &v.show_diff);
        if (v.show_diff) ImGui::SliderFloat("diff opacity", &v.diff_opacity, 0.f, 1.f);
    } else {
        v.show_diff = false;
    }
    ImGui::Checkbox("tile heat-map overlay (circles per tile)", &v.show_tiles);
    if (v.show_tiles) {
        ImGui::SliderFloat("tile opacity", &v.tile_opacity, 0.f, 1.f);
        ImGui::TextWrapped("%s", v.tiles_note.c_str());
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

void draw_panel(Session& s, ViewState& v, DisplayTexture& display, float width) {
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
    if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) scene_section(s, v);
    if (ImGui::CollapsingHeader("Renderer", ImGuiTreeNodeFlags_DefaultOpen)) {
        renderer_section(s, v);
        display_section(display, v);
    }
    if (ImGui::CollapsingHeader("Playback", ImGuiTreeNodeFlags_DefaultOpen)) playback_section(s, v);
    if (ImGui::CollapsingHeader("Check and overlays", ImGuiTreeNodeFlags_DefaultOpen)) check_section(s, v);
    if (ImGui::CollapsingHeader("Stage times", ImGuiTreeNodeFlags_DefaultOpen)) stages_section(s);
    ImGui::TextDisabled("keys: Space N 1-%zu C S Esc", renderer_infos().size());
    ImGui::End();
}

void handle_keys(Session& s, ViewState& v, const std::vector<int>& pressed) {
    if (ImGui::GetIO().WantTextInput) return;
    const auto& infos = renderer_infos();
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
