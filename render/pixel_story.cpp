#include "render/pixel_story.h"

#include <cmath>
#include <cstdio>

#include "render/compare.h"
#include "render/core/shading.h"
#include "render/cpu/cpu_stages.h"

namespace cr {

std::vector<PixelMismatch> first_mismatches(const Image& test, const Image& ref, float tolerance, size_t max_count) {
    std::vector<PixelMismatch> out;
    if (test.width != ref.width || test.height != ref.height) return out;
    for (int j = 0; j < ref.height && out.size() < max_count; ++j)
        for (int i = 0; i < ref.width && out.size() < max_count; ++i) {
            const float* a = test.pixel(i, j);
            const float* b = ref.pixel(i, j);
            if (!(pixel_error(a, b) > tolerance)) continue;  // the rule compare_images counts by
            PixelMismatch m;
            m.x = i;
            m.y = j;
            for (int c = 0; c < 4; ++c) {
                m.expected[c] = b[c];
                m.got[c] = a[c];
            }
            out.push_back(m);
        }
    return out;
}

PixelStory pixel_story(const Scene& s, int width, int height, int x, int y, size_t max_steps) {
    PixelStory story;
    story.x = x;
    story.y = y;
    const float bg = background_value(s.shade, y, height);
    float rgba[4] = {bg, bg, bg, 1.f};
    for (int c = 0; c < 4; ++c) story.background[c] = rgba[c];
    const float inv_w = 1.f / static_cast<float>(width), inv_h = 1.f / static_cast<float>(height);
    for (size_t k = 0; k < s.count(); ++k) {
        const PixelBox b = circle_pixel_box(s.x[k], s.y[k], s.radius[k], width, height);
        if (x < b.min_x || x >= b.max_x || y < b.min_y || y >= b.max_y) continue;
        Fragment f;
        if (!circle_fragment(s, k, x, y, inv_w, inv_h, f)) continue;  // as cpuref's shade_pixel
        blend(rgba[0], rgba[1], rgba[2], rgba[3], f);
        ++story.covering;
        if (story.steps.size() >= max_steps) continue;
        StoryStep st;
        st.circle = k;
        st.x = s.x[k];
        st.y = s.y[k];
        st.radius = s.radius[k];
        st.z = s.z[k];
        st.color[0] = f.r;
        st.color[1] = f.g;
        st.color[2] = f.b;
        st.alpha = f.alpha;
        for (int c = 0; c < 4; ++c) st.after[c] = rgba[c];
        story.steps.push_back(st);
    }
    for (int c = 0; c < 4; ++c) story.final_rgba[c] = rgba[c];
    return story;
}

Scene scene_at_frame(const Scene& scene, int frames) {
    Scene s = scene;
    for (int f = 0; f < frames; ++f) advance_circles(s, 0, static_cast<int64_t>(s.count()));
    return s;
}

std::string rgb_text(const float* v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%.4f, %.4f, %.4f)", v[0], v[1], v[2]);
    return buf;
}

namespace {

std::string story_text(const PixelStory& st) {
    std::string out = "Pixel (" + std::to_string(st.x) + ", " + std::to_string(st.y) +
                      "): the circles covering it, in input order, and the expected color after each blend:\n";
    out += "  background (after clear)                                   " + rgb_text(st.background) + "\n";
    char line[256];
    for (const StoryStep& s : st.steps) {
        std::snprintf(line, sizeof line, "  circle %-8zu at (%.4f, %.4f) r %.4f  color %s alpha %.3f -> %s\n", s.circle,
                      s.x, s.y, s.radius, rgb_text(s.color).c_str(), s.alpha, rgb_text(s.after).c_str());
        out += line;
    }
    if (st.covering > st.steps.size())
        out += "  ... " + std::to_string(st.covering - st.steps.size()) + " more circles; expected final " +
               rgb_text(st.final_rgba) + "\n";
    if (st.covering == 0) out += "  (no circle covers it: the expected color is the background)\n";
    return out;
}

}  // namespace

std::string describe_mismatches(const Image& test, const Image& ref, float tolerance, long long count,
                                const Scene& scene, size_t show) {
    const std::vector<PixelMismatch> first = first_mismatches(test, ref, tolerance, show);
    if (first.empty()) return "";
    char head[160];
    std::snprintf(head, sizeof head, "%lld pixels differ by more than %g; the first %zu (x, y; row 0 is the bottom):\n",
                  count, static_cast<double>(tolerance), first.size());
    std::string out = head;
    for (const PixelMismatch& m : first)
        out += "  (" + std::to_string(m.x) + ", " + std::to_string(m.y) + "): expected " + rgb_text(m.expected) +
               ", got " + rgb_text(m.got) + "\n";
    return out + story_text(pixel_story(scene, ref.width, ref.height, first[0].x, first[0].y));
}

}  // namespace cr
