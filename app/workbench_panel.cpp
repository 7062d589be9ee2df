// The panel's "Your renderer" tab (see panel.h): the student's folder and
// build status, compiler messages, the comparison with the reference, faults,
// the pixel inspector and the timings.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "inspector.h"
#include "panel.h"
#include "render/student/sanitize.h"
#include "workbench.h"

namespace cr::app {

namespace {

const ImVec4 kRed(1.f, .45f, .45f, 1.f), kGreen(.45f, 1.f, .45f, 1.f), kYellow(1.f, .85f, .3f, 1.f);

/// The folder box, Load, and the folders loaded before.
void folder_row(ViewState& v, Workbench& bench) {
    ImGui::SetNextItemWidth(250);
    const bool enter = ImGui::InputTextWithHint("##folder", "your course render/ folder", &v.student_folder,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Load##student") || enter) bench.load(v.student_folder);
    ImGui::SameLine();
    const auto& recent = bench.settings().recent_folders;
    ImGui::BeginDisabled(recent.empty());
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##recent", "recent", ImGuiComboFlags_NoPreview | ImGuiComboFlags_HeightLarge)) {
        for (const std::string& f : std::vector<std::string>(recent))  // a copy: load() reorders the list
            if (ImGui::Selectable(f.c_str())) {
                v.student_folder = f;
                bench.load(f);
            }
        ImGui::EndCombo();
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("folders loaded before (kept in the settings file)");
}

ImVec4 status_color(Workbench::Status st) {
    switch (st) {
        case Workbench::Status::Building: return kYellow;
        case Workbench::Status::Ready: return kGreen;
        case Workbench::Status::BuildFailed:
        case Workbench::Status::Crashed: return kRed;
        case Workbench::Status::CannotRun: return ImVec4(1.f, .65f, .3f, 1.f);
        default: break;
    }
    return ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
}

/// The status line, what it means, and the settings file's problem if any.
void status_block(const Workbench& bench) {
    ImGui::TextUnformatted("status:");
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, status_color(bench.status()));
    ImGui::TextWrapped("%s", bench.status_line().c_str());
    ImGui::PopStyleColor();
    if (!bench.detail().empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", bench.detail().c_str());
        ImGui::PopStyleColor();
    }
    const std::string log = bench.lane().log_path();
    if (!log.empty()) {
        ImGui::TextDisabled("your program's output: %s", log.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", log.c_str());
    }
    if (!bench.settings_error().empty()) ImGui::TextColored(kYellow, "%s", bench.settings_error().c_str());
}

/// The compiler's messages: a read-only text box (select and Ctrl+C) and Copy all.
void messages_box(const Workbench& bench) {
    const std::string& full = bench.compiler_messages();
    if (full.empty()) return;
    const std::string& m = bench.compiler_messages_shown();
    const std::string& first = bench.first_error_line();
    if (!first.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kRed);
        ImGui::TextWrapped("%s", first.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::TextDisabled("compiler (paths in your folder; select, Ctrl+C):");
    ImGui::SameLine();
    if (ImGui::SmallButton("Copy all")) ImGui::SetClipboardText(full.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("copies the messages with full paths");
    // Read-only: ImGui never writes into the buffer (imgui_stdlib passes a
    // std::string's c_str() the same way), so the stored text needs no copy.
    ImGui::InputTextMultiline("##messages", const_cast<char*>(m.c_str()), m.size() + 1,
                              ImVec2(-1, ImGui::GetTextLineHeight() * 8), ImGuiInputTextFlags_ReadOnly);
}

/// What went wrong in the student's code (or that a call has not returned
/// for a while: the window keeps drawing meanwhile), and the restart button.
void fault_block(Workbench& bench) {
    const StudentLane& lane = bench.lane();
    const std::string waiting = lane.waiting_line();
    if (!waiting.empty()) {
        ImGui::TextColored(kYellow, "%s", waiting.c_str());
        if (ImGui::Button("Restart worker")) bench.restart_worker();
        ImGui::SameLine();
        ImGui::TextDisabled("kills it now; the other renderers keep running");
        return;
    }
    if (lane.state() != StudentLane::State::Faulted) return;
    const StudentFaultInfo& f = lane.fault();
    ImGui::PushStyleColor(ImGuiCol_Text, kRed);
    ImGui::TextWrapped("%s", f.what.c_str());
    ImGui::PopStyleColor();
    if (f.frame >= 0) ImGui::Text("in %s, frame %d", f.call.c_str(), f.frame);
    else ImGui::Text("in %s (while setting up)", f.call.c_str());
    if (ImGui::Button("Restart worker")) bench.restart_worker();
    ImGui::SameLine();
    ImGui::TextDisabled("the other renderers keep running");
}

void view_choice(ViewState& v) {
    ImGui::TextUnformatted("show:");
    const std::pair<CompareView, const char*> views[] = {{CompareView::SideBySide, "side by side"},
                                                         {CompareView::Student, "student"},
                                                         {CompareView::Reference, "reference"},
                                                         {CompareView::Diff, "diff"}};
    for (const auto& [view, label] : views) {
        ImGui::SameLine();
        if (ImGui::RadioButton(label, v.compare_view == view)) v.compare_view = view;
    }
    if (v.compare_view == CompareView::Diff) {
        ImGui::SetNextItemWidth(140);
        ImGui::SliderFloat("diff opacity##student", &v.student_diff_opacity, 0.f, 1.f);
    }
}

/// The reference: the session's renderer, any of the switchable ones.
void reference_choice(Session& s, const ViewState& v) {
    ImGui::SetNextItemWidth(140);
    if (ImGui::BeginCombo("reference", s.renderer_name().c_str())) {
        for (const RendererInfo& info : switchable_renderers()) {
            ImGui::BeginDisabled(info.needs_gpu && !v.cuda_ok);
            if (ImGui::Selectable(info.name.c_str(), info.name == s.renderer_name()) && info.name != s.renderer_name())
                choose_renderer(s, info.name);
            ImGui::EndDisabled();
        }
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("the renderer your image is compared with: cpu draws cpuref's pixels on every core");
}

/// The last frame's mismatch counts under both rules, and their history.
void mismatch_block(const StudentLane& lane) {
    const LaneCompare& c = lane.compare();
    if (!c.valid) {
        ImGui::TextDisabled("no student frame compared yet");
        return;
    }
    const auto verdict = [](bool pass) { return pass ? "PASS" : "FAIL"; };
    ImGui::Text("frame %d, student vs %s:", c.frame, c.reference.c_str());
    if (ImGui::BeginTable("mismatch", 3, ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("strict (1e-4)");
        ImGui::TableNextColumn();
        ImGui::Text("%lld px", static_cast<long long>(c.stats.mismatches_strict));
        ImGui::TableNextColumn();
        ImGui::TextColored(c.stats.pass ? kGreen : kRed, "%s", verdict(c.stats.pass));
        ImGui::TableNextColumn();
        ImGui::TextDisabled("course (0.1)");
        ImGui::TableNextColumn();
        ImGui::Text("%lld px", static_cast<long long>(c.stats.mismatches_course));
        ImGui::TableNextColumn();
        ImGui::TextColored(c.pass_course ? kGreen : kRed, "%s", verdict(c.pass_course));
        ImGui::EndTable();
    }
    const std::vector<float>& h = lane.mismatch_history();
    const float top = h.empty() ? 0.f : *std::max_element(h.begin(), h.end());
    ImGui::TextDisabled("pixels beyond 1e-4 in the last %zu frames (max %.0f):", h.size(), top);
    ImGui::PlotLines("##mismatches", h.data(), static_cast<int>(h.size()), 0, nullptr, 0.f, std::max(1.f, top) * 1.1f,
                     ImVec2(-1, ImGui::GetTextLineHeight() * 2));
}

/// The Sanitize button: the current build under compute-sanitizer on the
/// scene and size shown, and its report in a scrollable list.
void sanitize_block(Session& s, ViewState& v, Workbench& bench) {
    static const std::vector<const char*> tools = [] {
        std::vector<const char*> names;
        for (const auto& t : student::sanitizer_tools()) names.push_back(t.c_str());
        return names;
    }();
    ImGui::BeginDisabled(!bench.has_build() || bench.sanitizing());
    if (ImGui::Button("Sanitize")) bench.start_sanitize(s, tools[static_cast<size_t>(v.sanitize_tool)]);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("runs your renderer under compute-sanitizer on this scene and size: which thread of which "
                          "kernel, at which line of your code");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    ImGui::Combo("##tool", &v.sanitize_tool, tools.data(), static_cast<int>(tools.size()));
    if (bench.sanitizing()) {
        ImGui::SameLine();
        ImGui::TextDisabled("running (%.0f s)", bench.sanitize_seconds());
    }
    const std::vector<std::string>& lines = bench.sanitize_lines();
    if (lines.empty()) return;
    ImGui::BeginChild("sanitize", ImVec2(-1, ImGui::GetTextLineHeightWithSpacing() * 7), true,
                      ImGuiWindowFlags_HorizontalScrollbar);
    for (const auto& line : lines) ImGui::TextUnformatted(line.c_str());
    ImGui::EndChild();
}

void compare_section(Session& s, ViewState& v, Workbench& bench) {
    if (ImGui::Button(v.playing ? "Pause (Space)" : "Play (Space)")) {
        v.playing = !v.playing;
        v.paused_note.clear();
    }
    ImGui::SameLine();
    if (ImGui::Button("Step (N)")) v.step_requested = true;
    ImGui::SameLine();
    ImGui::Text("frame %d", std::max(s.frame() - 1, 0));
    const StudentLane& lane = bench.lane();
    if (lane.state() == StudentLane::State::Running) {
        ImGui::SameLine();
        ImGui::TextDisabled("student: %.1f frames/s", lane.frames_per_second());
    }
    view_choice(v);
    reference_choice(s, v);
    mismatch_block(bench.lane());
    ImGui::Checkbox("pause at the first frame that mismatches", &v.pause_on_mismatch);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    int rule = v.pause_rule_course ? 1 : 0;
    if (ImGui::Combo("##rule", &rule, "strict\0course\0")) v.pause_rule_course = rule == 1;
    if (!v.paused_note.empty()) ImGui::TextColored(kYellow, "%s", v.paused_note.c_str());
}

}  // namespace

void workbench_tab(Session& s, ViewState& v, PanelTools& t) {
    Workbench& bench = t.bench;
    folder_row(v, bench);
    status_block(bench);
    messages_box(bench);
    fault_block(bench);
    if (ImGui::CollapsingHeader("Compare", ImGuiTreeNodeFlags_DefaultOpen)) compare_section(s, v, bench);
    if (ImGui::CollapsingHeader("Pixel inspector", ImGuiTreeNodeFlags_DefaultOpen)) inspector_section(s, v, t);
    if (ImGui::CollapsingHeader("Sanitizer")) sanitize_block(s, v, bench);
    if (ImGui::CollapsingHeader("Timings")) {
        stage_table(s, bench);
        timing_chart(s.timing_board());
    }
}

}  // namespace cr::app
