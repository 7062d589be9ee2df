// The Viewer's textures, image panes, mouse and drawing (see viewer.h).
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "render/compare.h"
#include "render/image_io.h"
#include "viewer.h"

namespace cr::app {

void Viewer::update_tile_overlay() {
    overlays_.tile_version = session_.image_version();
    view_.tile_totals.clear();
    TileLoads tl;
    if (view_.tile_source == TileSource::Renderer) {
        tl = session_.tile_loads();
    } else {
        TileMap m = teaching_tile_map(tracker_.at(session_, session_.frame()), session_.width(), session_.height(),
                                      view_.tile_source);
        tl = std::move(m.loads);
        const double culled = m.listed_pairs > 0 ? 100.0 * (m.listed_pairs - m.hit_pairs) / m.listed_pairs : 0.0;
        char buf[160];
        std::snprintf(buf, sizeof buf, "%lld circle-tile pairs listed, %lld hit: the exact test drops %.1f%%",
                      m.listed_pairs, m.hit_pairs, culled);
        view_.tile_totals = buf;
    }
    if (tl.loads.empty() || tl.tiles_x <= 0 || tl.tiles_y <= 0) {
        view_.tiles_note = "renderer '" + session_.renderer_name() + "' has no tiles";
        view_.tile_max = -1;
        overlays_.tile_cover_x = 0;
        return;
    }
    const int top = *std::max_element(tl.loads.begin(), tl.loads.end());
    overlays_.tile_tex.set(tile_heatmap_rgba8(tl.loads, tl.tiles_x, tl.tiles_y, top), tl.tiles_x, tl.tiles_y);
    overlays_.tile_cover_x = static_cast<float>(session_.width()) / static_cast<float>(tl.tiles_x * tl.tile_size);
    overlays_.tile_cover_y = static_cast<float>(session_.height()) / static_cast<float>(tl.tiles_y * tl.tile_size);
    view_.tile_max = top;
    const std::string source = view_.tile_source == TileSource::Renderer ? "" : std::string(tile_source_name(view_.tile_source)) + ", ";
    view_.tiles_note = source + std::to_string(tl.tiles_x) + " x " + std::to_string(tl.tiles_y) + " tiles of " +
                       std::to_string(tl.tile_size) + " px";
}

void Viewer::update_student_texture() {
    const StudentLane& lane = bench_.lane();
    const Image& img = lane.image();
    if (img.width == 0 || lane.image_version() == overlays_.student_version) return;
    const std::vector<uint8_t>& made = lane.display_rgba8();  // converted on the lane's side
    if (made.size() == size_t(img.width) * img.height * 4) overlays_.student_tex.set(made, img.width, img.height);
    else overlays_.student_tex.set(to_rgb8_top_down(img, true), img.width, img.height);
    overlays_.student_version = lane.image_version();
}

namespace {

/// A diff heat map as an overlay texture: the heat map's colours where the
/// images differ, transparent where they are equal (black in the heat map),
/// so that a passing frame shows the image itself under the overlay.
std::vector<uint8_t> diff_overlay_rgba8(const Image& heat) {
    std::vector<uint8_t> px = to_rgb8_top_down(heat, /*with_alpha=*/true);
    for (size_t i = 0; i + 3 < px.size(); i += 4)
        if (px[i] == 0 && px[i + 1] == 0 && px[i + 2] == 0) px[i + 3] = 0;
    return px;
}

}  // namespace

void Viewer::update_student_diff() {
    const StudentLane& lane = bench_.lane();
    const Image& img = lane.image();
    const std::pair<int, int> key{lane.image_version(), 0};
    if (img.width == 0 || lane.image_version() == overlays_.student_diff_version || key == overlays_.student_diff_tried)
        return;
    overlays_.student_diff_tried = key;  // also when it bails out below: not tried again until an image changes
    const Image& ref = lane.reference_image();  // the reference's image of the same frame
    if (ref.width != img.width || ref.height != img.height) return;
    const Image heat = diff_heatmap(img, ref, kStrictTolerance);
    overlays_.student_diff_tex.set(diff_overlay_rgba8(heat), heat.width, heat.height);
    overlays_.student_diff_version = lane.image_version();
}

void Viewer::update_textures() {
    if (session_.renderer() && session_.image_version() != shown_version_) {
        try {
            display_.upload(*session_.renderer(), session_.width(), session_.height());
            shown_version_ = session_.image_version();
        } catch (const std::exception& e) {
            session_.renderer_failed(e);
        }
    }
    if (view_.show_diff && session_.check().valid && session_.check().version != overlays_.diff_version) {
        const Image& h = session_.check().heatmap;
        overlays_.diff_tex.set(diff_overlay_rgba8(h), h.width, h.height);
        overlays_.diff_version = session_.check().version;
    }
    if (view_.show_tiles &&
        (overlays_.tile_version != session_.image_version() || overlays_.tile_source != view_.tile_source)) {
        update_tile_overlay();
        overlays_.tile_source = view_.tile_source;
    }
    update_student_texture();
    if (view_.compare_view == CompareView::Diff) update_student_diff();
}

std::vector<Pane> Viewer::layout(const FrameGeometry& g) const {
    const StudentLane& lane = bench_.lane();
    const bool student = lane.image().width == session_.width() && lane.image().height == session_.height() &&
                         lane.image().width > 0 && overlays_.student_tex.texture() != 0 &&
                         lane.state() != StudentLane::State::Empty;
    std::vector<Pane> panes;
    const auto add = [&](Pane::Kind k, const PixelRect& area) {
        const bool ref = k == Pane::Kind::Reference;
        Pane p{k, area, {}, ref ? display_.width() : lane.image().width, ref ? display_.height() : lane.image().height};
        p.rect = place_image(area, p.width, p.height, view_.pixel_exact, view_.zoom);
        panes.push_back(p);
    };
    const bool waiting = !student && !bench_.folder().empty() && view_.compare_view == CompareView::SideBySide;
    const int half = (g.area.w - 4) / 2;
    if (waiting) {  // the student's half says why it is empty
        add(Pane::Kind::Reference, PixelRect{g.area.x, g.area.y, half, g.area.h});
        Pane placeholder;
        placeholder.kind = Pane::Kind::Placeholder;
        placeholder.area = PixelRect{g.area.x + g.area.w - half, g.area.y, half, g.area.h};
        panes.push_back(placeholder);
    } else if (!student || view_.compare_view == CompareView::Reference) {
        add(Pane::Kind::Reference, g.area);
    } else if (view_.compare_view == CompareView::Student) {
        add(Pane::Kind::Student, g.area);
    } else if (view_.compare_view == CompareView::Diff) {
        add(Pane::Kind::StudentDiff, g.area);
    } else {
        add(Pane::Kind::Reference, PixelRect{g.area.x, g.area.y, half, g.area.h});
        add(Pane::Kind::Student, PixelRect{g.area.x + g.area.w - half, g.area.y, half, g.area.h});
    }
    return panes;
}

void Viewer::handle_mouse(const FrameGeometry& g) {
    const ImGuiIO& io = ImGui::GetIO();
    const double scale = static_cast<double>(g.fb_w) / g.win_w;
    const double fx = io.MousePos.x * scale, fy = g.fb_h - io.MousePos.y * scale;
    const std::vector<Pane> panes = layout(g);
    const Pane* hit = nullptr;
    for (const Pane& p : panes)
        if (p.kind != Pane::Kind::Placeholder && fx >= p.area.x && fx < p.area.x + p.area.w && fy >= p.area.y &&
            fy < p.area.y + p.area.h)
            hit = &p;
    const bool free = !io.WantCaptureMouse && io.MousePos.x >= 0;
    if (free && hit && io.MouseWheel != 0)
        zoom_at(view_.zoom, hit->area, hit->width, hit->height, view_.pixel_exact, std::pow(1.25, io.MouseWheel), fx, fy);
    if (free && hit && ImGui::IsMouseClicked(0)) dragging_ = true;
    if (dragging_ && ImGui::IsMouseDragging(0, 3.f)) {
        view_.zoom.pan_x += io.MouseDelta.x * scale;
        view_.zoom.pan_y -= io.MouseDelta.y * scale;
    }
    int px = 0, py = 0;
    if (dragging_ && ImGui::IsMouseReleased(0)) {
        dragging_ = false;
        if (io.MouseDragMaxDistanceSqr[0] < 9.f && hit && image_pixel_at(hit->rect, hit->width, hit->height, fx, fy, px, py))
            inspector_.select(px, py);
    }
    if (free && hit && io.KeyShift && !dragging_ && image_pixel_at(hit->rect, hit->width, hit->height, fx, fy, px, py))
        inspector_.select(px, py);
}

void Viewer::apply_zoom_requests(const Pane& p) {
    if (p.width <= 0) return;
    if (view_.request_fit) view_.zoom = ZoomPan{};
    if (view_.request_one_to_one) view_.zoom = ZoomPan{one_to_one_zoom(p.area, p.width, p.height, view_.pixel_exact), 0, 0};
    view_.request_fit = view_.request_one_to_one = false;
    if (!initial_zoom_) return;
    initial_zoom_ = false;
    view_.zoom = ZoomPan{opt_.zoom, 0, 0};
    if (!opt_.inspect) return;
    const PixelRect base = fit_image(p.area, p.width, p.height, view_.pixel_exact);  // center the inspected pixel
    const double cx = base.x + base.w / 2.0, cy = base.y + base.h / 2.0;
    const double px = base.x + (opt_.inspect_x + .5) / p.width * base.w, py = base.y + (opt_.inspect_y + .5) / p.height * base.h;
    view_.zoom.pan_x = -(px - cx) * opt_.zoom;
    view_.zoom.pan_y = -(py - cy) * opt_.zoom;
}

void Viewer::draw_pane(const Pane& p) const {
    if (p.kind == Pane::Kind::Placeholder) return;  // its text is drawn with the marks
    const bool student = p.kind != Pane::Kind::Reference;
    const GLuint tex = student ? overlays_.student_tex.texture() : display_.texture();
    if (!tex) return;
    const bool scaled_down = p.rect.w < p.width;
    DrawStyle base;
    base.smooth = scaled_down;
    base.clip = p.area;
    image_view_.draw(tex, p.rect, base);
    DrawStyle over = base;
    over.blend = true;
    if (p.kind == Pane::Kind::StudentDiff && overlays_.student_diff_tex.texture()) {
        over.opacity = view_.student_diff_opacity;
        image_view_.draw(overlays_.student_diff_tex.texture(), p.rect, over);
    }
    if (!student && view_.show_diff && session_.check().valid && overlays_.diff_tex.texture()) {
        over.opacity = view_.diff_opacity;
        image_view_.draw(overlays_.diff_tex.texture(), p.rect, over);
    }
    if (!student && view_.show_blends && overlays_.blends_tex.texture()) {
        over.opacity = view_.blends_opacity;
        image_view_.draw(overlays_.blends_tex.texture(), p.rect, over);
    }
    over.smooth = false;
    if (view_.show_tiles && overlays_.tile_cover_x > 0 && overlays_.tile_tex.texture()) {
        DrawStyle t = over;
        t.opacity = view_.tile_opacity;
        t.coverage_x = overlays_.tile_cover_x;
        t.coverage_y = overlays_.tile_cover_y;
        image_view_.draw(overlays_.tile_tex.texture(), p.rect, t);
    }
    if (view_.show_warps && overlays_.warp_tex.texture()) {
        DrawStyle w = over;
        w.opacity = view_.warp_opacity;
        w.coverage_x = overlays_.warp_cover_x;
        w.coverage_y = overlays_.warp_cover_y;
        image_view_.draw(overlays_.warp_tex.texture(), p.rect, w);
    }
}

template <class ToWin>
void Viewer::draw_placeholder(ImDrawList* dl, const Pane& p, const ToWin& to_win) const {
    const std::string text = "your renderer: " + bench_.status_line();
    const ImVec2 a = to_win(p.area.x, p.area.y + p.area.h), b = to_win(p.area.x + p.area.w, p.area.y);
    dl->AddRect(ImVec2(a.x + 2, a.y + 2), ImVec2(b.x - 2, b.y - 2), IM_COL32(120, 120, 120, 255), 0.f, 0, 1.f);
    const float wrap = std::max(40.f, b.x - a.x - 24);
    const ImVec2 size = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
    const ImVec2 at((a.x + b.x - size.x) / 2, (a.y + b.y - size.y) / 2);
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), at, IM_COL32(220, 220, 220, 255), text.c_str(), nullptr, wrap);
}

void Viewer::draw_pane_marks(const FrameGeometry& g, const std::vector<Pane>& panes) const {
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const float s = static_cast<float>(g.fb_w) / static_cast<float>(g.win_w);
    const auto to_win = [&](double fx, double fy) { return ImVec2(static_cast<float>(fx / s), static_cast<float>((g.fb_h - fy) / s)); };
    const bool labels = panes.size() > 1 || panes.front().kind != Pane::Kind::Reference;
    const Inspection& in = inspector_.result();
    for (const Pane& p : panes) {
        if (p.kind == Pane::Kind::Placeholder) {
            draw_placeholder(dl, p, to_win);
            continue;
        }
        if (labels) {
            const bool stopped = bench_.lane().state() == StudentLane::State::Faulted;
            const std::string text = p.kind == Pane::Kind::Reference ? "reference: " + session_.renderer_name()
                                     : p.kind == Pane::Kind::Student ? std::string(stopped ? "student (stopped: its last frame)" : "student")
                                                                     : "student, |difference| vs " + session_.renderer_name();
            // Above the image's top-left corner when there is room, else inside it; always in the pane.
            const ImVec2 size = ImGui::CalcTextSize(text.c_str());
            const double label_h = (size.y + 6) * s;
            const double top = std::min<double>(p.rect.y + p.rect.h + label_h, p.area.y + p.area.h - 4);
            const ImVec2 at = to_win(std::max(p.rect.x, p.area.x) + 4, top);
            dl->AddRectFilled(ImVec2(at.x - 3, at.y - 1), ImVec2(at.x + size.x + 3, at.y + size.y + 1), IM_COL32(0, 0, 0, 170));
            dl->AddText(at, IM_COL32(255, 255, 255, 255), text.c_str());
        }
        if (!in.valid || p.width <= 0) continue;
        const double x0 = p.rect.x + static_cast<double>(in.x) / p.width * p.rect.w;
        const double y0 = p.rect.y + static_cast<double>(in.y) / p.height * p.rect.h;
        const double pw = std::max(1.0, static_cast<double>(p.rect.w) / p.width);
        const ImVec2 a = to_win(x0 - 1, y0 + pw + 1), b = to_win(x0 + pw + 1, y0 - 1);
        dl->PushClipRect(to_win(p.area.x, p.area.y + p.area.h), to_win(p.area.x + p.area.w, p.area.y), true);
        dl->AddRect(ImVec2(a.x - 2, a.y - 2), ImVec2(b.x + 2, b.y + 2), IM_COL32(0, 0, 0, 255), 0.f, 0, 1.f);
        dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), IM_COL32(0, 255, 255, 255), 0.f, 0, 1.f);
        dl->PopClipRect();
    }
}

void Viewer::draw(const FrameGeometry& g) {
    std::vector<Pane> panes = layout(g);
    apply_zoom_requests(panes.front());
    panes = layout(g);
    const Pane& first = panes.front();
    view_.drawn_scale = first.width > 0 && (first.kind != Pane::Kind::Reference || display_.texture())
                            ? static_cast<double>(first.rect.w) / first.width
                            : 0;
    // The panel shows this frame's numbers; what the user changes there is
    // rendered from the next iteration on.
    PanelTools tools{bench_, inspector_, warps_, blends_};
    for (int k = 0; k < 3; ++k) tools.order_textures[k] = overlays_.order_tex[k].texture();
    tools.order_demo = &order_demo_;
    draw_panel(session_, view_, display_, tools, g.panel_w);
    draw_pane_marks(g, panes);
    ImGui::Render();
    glViewport(0, 0, g.fb_w, g.fb_h);
    glClearColor(.12f, .12f, .14f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    for (const Pane& p : panes) draw_pane(p);
    glViewport(0, 0, g.fb_w, g.fb_h);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace cr::app
