// The pixel inspector and the session's timing chart, parts of the panel's
// "Your renderer" tab (see panel.h).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "inspector.h"
#include "panel.h"
#include "workbench.h"

namespace cr::app {

namespace {

/// 1:1, Fit and the zoom shown.
void zoom_row(ViewState& v) {
    if (ImGui::Button("1:1")) v.request_one_to_one = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("one image pixel on one screen pixel");
    ImGui::SameLine();
    if (ImGui::Button("Fit")) v.request_fit = true;
    ImGui::SameLine();
    ImGui::TextDisabled("drawn %s; wheel zooms, drag pans", drawn_scale_label(v.drawn_scale, v.zoom.zoom != 1).c_str());
}

/// R, G and B of `c` as "0.2500 0.5000 0.7500" (no brackets: beside a swatch).
std::string rgb_plain_text(const float* c) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f %.4f %.4f", c[0], c[1], c[2]);
    return buf;
}

/// The circles covering the pixel, in input order, with the color after each.
void story_table(const PixelStory& st) {
    ImGui::Text("%zu circle(s) cover it, in input order:", st.covering);
    // Short stories size themselves; long ones scroll in a box of 9 rows.
    const bool scroll = st.steps.size() > 7;
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                  (scroll ? ImGuiTableFlags_ScrollY : 0);
    const float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
    if (!ImGui::BeginTable("story", 4, flags, ImVec2(-1, scroll ? row_h * 9 : 0))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("circle");
    ImGui::TableSetupColumn("its color");
    ImGui::TableSetupColumn("alpha");
    ImGui::TableSetupColumn("expected after it (r g b)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("background");
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    color_swatch(st.background, rgb_plain_text(st.background).c_str());
    for (const StoryStep& s : st.steps) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("#%zu", s.circle);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("center (%.4f, %.4f), radius %.4f, z %.4f", s.x, s.y, s.radius, s.z);
        ImGui::TableNextColumn();
        color_swatch(s.color, "");
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", s.alpha);
        ImGui::TableNextColumn();
        color_swatch(s.after, rgb_plain_text(s.after).c_str());
    }
    ImGui::EndTable();
    if (st.steps.size() < st.covering) ImGui::TextDisabled("(the first %zu shown)", st.steps.size());
}

}  // namespace

void inspector_section(Session& s, ViewState& v, PanelTools& t) {
    (void)s;
    zoom_row(v);
    const Inspection& in = t.inspector.result();
    if (!in.valid) {
        ImGui::TextDisabled("click a pixel of the image (or hold Shift over it)");
        return;
    }
    ImGui::Text("pixel (%d, %d), row 0 at the bottom; frame %d", in.x, in.y, in.frame);
    ImGui::SameLine();
    if (ImGui::SmallButton("Copy")) ImGui::SetClipboardText(t.inspector.text().c_str());
    color_swatch(in.expected, ("expected (" + in.reference + "): " + rgb_plain_text(in.expected)).c_str());
    if (in.has_student) {
        color_swatch(in.student, ("student: " + rgb_plain_text(in.student)).c_str());
        float worst = 0;
        for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(in.student[c] - in.expected[c]));
        ImGui::SameLine();
        ImGui::TextDisabled("max |diff| %.3g", worst);
    } else {
        ImGui::TextDisabled("student: no frame of the student's for this frame");
    }
    story_table(in.story);
}

void timing_chart(const TimingBoard& board) {
    const auto& entries = board.entries();
    if (entries.empty()) return;
    double top = 0;
    for (const auto& e : entries) top = std::max(top, mean_of(e.sums).total_ms);
    const ImU32 colors[3] = {IM_COL32(110, 140, 200, 255), IM_COL32(170, 110, 200, 255), IM_COL32(240, 150, 60, 255)};
    const char* names[3] = {"Clear", "Advance", "Render"};
    ImGui::TextUnformatted("mean ms a frame of the renderers run in this session:");
    for (int k = 0; k < 3; ++k) {
        if (k) ImGui::SameLine();
        color_swatch(colors[k], names[k]);
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float label_w = 150, h = ImGui::GetTextLineHeight();
    for (const auto& e : entries) {
        const FrameTimes m = mean_of(e.sums);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float bar_w = ImGui::GetContentRegionAvail().x - label_w - 70;
        const std::string label = e.renderer + ", " + e.scene;
        dl->PushClipRect(p, ImVec2(p.x + label_w - 4, p.y + h), true);
        dl->AddText(p, ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
        dl->PopClipRect();
        float x = p.x + label_w;
        const double parts[3] = {m.clear_ms, m.advance_ms, m.render_ms};
        for (int k = 0; k < 3; ++k) {
            const float w = top > 0 ? static_cast<float>(parts[k] / top) * bar_w : 0.f;
            dl->AddRectFilled(ImVec2(x, p.y + 1), ImVec2(x + w, p.y + h - 1), colors[k]);
            x += w;
        }
        char total[32];
        std::snprintf(total, sizeof total, "%.3f", m.total_ms);
        dl->AddText(ImVec2(x + 4, p.y), ImGui::GetColorU32(ImGuiCol_Text), total);
        ImGui::Dummy(ImVec2(label_w + bar_w + 70, h));
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s at %dx%d, %s (%s): Clear %.3f, Advance %.3f, Render %.3f ms over %d frames",
                              e.renderer.c_str(), e.width, e.height, e.scene.c_str(), e.method.c_str(), m.clear_ms,
                              m.advance_ms, m.render_ms, m.counted);
    }
}

}  // namespace cr::app
