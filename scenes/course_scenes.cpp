// Generators of the course scenes, following ../shared/SCENES.md draw by draw:
// every `u` below is one GlibcRand::next_float() in exactly the written order.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "scenes/glibc_rand.h"
#include "scenes/scene.h"

namespace cr {

namespace {

void set_color(Scene& s, size_t i, float r, float g, float b) {
    s.r[i] = r;
    s.g[i] = g;
    s.b[i] = b;
}

/// Draws n depths and sorts them front-to-back the way the course does
/// (descending, so the deepest circle is drawn first).
std::vector<float> sorted_depths(GlibcRand& rng, size_t n) {
    std::vector<float> depths(n);
    for (auto& d : depths) d = rng.next_float();
    std::sort(depths.begin(), depths.end(), std::greater<float>());
    return depths;
}

/// Color draws of "random circles" and "sized circles" for the two smaller
/// size classes (the classes differ for N > 100000 only).
void random_color_small(Scene& s, size_t i, size_t n, GlibcRand& u) {
    if (n <= 10000) {
        const float cr = .1f + .9f * u.next_float();
        const float cg = .2f + .5f * u.next_float();
        const float cb = .5f + .5f * u.next_float();
        set_color(s, i, cr, cg, cb);
    } else {
        const float cr = .3f + .9f * u.next_float();
        const float cg = .1f + .9f * u.next_float();
        const float cb = .1f + .4f * u.next_float();
        set_color(s, i, cr, cg, cb);
    }
}

/// The loop shared by "random circles" and "sized circles": depths drawn and
/// sorted first, then per circle radius (draw_radius, which may draw), x, y,
/// and the color draws (big_color for N > 100000, which the two differ in).
template <class DrawRadius, class DrawBigColor>
Scene depth_sorted_circles(size_t n, GlibcRand& u, DrawRadius draw_radius, DrawBigColor big_color) {
    Scene s;
    s.resize(n);
    const std::vector<float> depth = sorted_depths(u, n);
    for (size_t i = 0; i < n; ++i) {
        s.radius[i] = draw_radius();
        s.x[i] = u.next_float();
        s.y[i] = u.next_float();
        s.z[i] = depth[i];
        if (n <= 100000) random_color_small(s, i, n, u);
        else big_color(s, i);
    }
    return s;
}

Scene random_circles(size_t n, GlibcRand& u) {
    return depth_sorted_circles(
        n, u,
        [&] { return n > 100000 ? .009f + .005f * u.next_float() : .02f + .06f * u.next_float(); },
        [&](Scene& s, size_t i) {
            const float cr = .2f + .5f * u.next_float();
            const float cg = .5f + .5f * u.next_float();
            const float cb = .1f + .4f * u.next_float();
            set_color(s, i, cr, cg, cb);
        });
}

Scene sized_circles(size_t n, float radius, GlibcRand& u) {
    return depth_sorted_circles(
        n, u, [radius] { return radius; },
        [&](Scene& s, size_t i) {
            const float cr = .3f + .9f * u.next_float();
            const float cg = .1f + .3f * u.next_float();
            const float cb = .2f + .2f * u.next_float();
            set_color(s, i, cr, cg, cb);
        });
}

/// biglittle / littlebig: 10000 circles of radius .25, the last 1000 made
/// small (.05) and crowded at x = .9 - c + .1u, y = c + .1u.
Scene big_little(float c, GlibcRand& u) {
    Scene s = sized_circles(10000, .25f, u);
    for (size_t i = 9000; i < 10000; ++i) {
        s.radius[i] = .05f;
        s.x[i] = .9f - c + .1f * u.next_float();
        s.y[i] = c + .1f * u.next_float();
    }
    return s;
}

Scene pattern(GlibcRand& u) {
    const float r = .5f / 16.f;
    Scene s;
    s.resize(16 * 16 + 31 * 31);
    size_t i = 0;
    for (int row = 0; row < 16; ++row)
        for (int col = 0; col < 16; ++col, ++i) {
            s.x[i] = r + 2.f * r * static_cast<float>(col);
            s.y[i] = r + 2.f * r * static_cast<float>(row);
            s.z[i] = u.next_float();
            s.radius[i] = r;
            set_color(s, i, 1.f, 0.f, 0.f);
        }
    for (int row = 0; row < 31; ++row)
        for (int col = 0; col < 31; ++col, ++i) {
            s.x[i] = 2.f * r * static_cast<float>(col);
            s.y[i] = 2.f * r * static_cast<float>(row);
            s.z[i] = u.next_float();
            s.radius[i] = r;
            set_color(s, i, 1.f, 1.f, 0.f);
        }
    return s;
}

void add_circle(Scene& s, float x, float y, float z, float radius, float r, float g, float b) {
    s.x.push_back(x);
    s.y.push_back(y);
    s.z.push_back(z);
    s.vx.push_back(0.f);
    s.vy.push_back(0.f);
    s.vz.push_back(0.f);
    s.radius.push_back(radius);
    s.r.push_back(r);
    s.g.push_back(g);
    s.b.push_back(b);
}

Scene rgb() {
    Scene s;
    add_circle(s, .4f, .5f, .75f, .3f, 1.f, 0.f, 0.f);
    add_circle(s, .5f, .5f, .5f, .3f, 0.f, 1.f, 0.f);
    add_circle(s, .6f, .5f, .25f, .3f, 0.f, 0.f, 1.f);
    return s;
}

Scene rgby() {
    Scene s;
    add_circle(s, .25f, .25f, .75f, .19f, 1.f, 0.f, 0.f);
    add_circle(s, .3f, .3f, .5f, .19f, 0.f, 1.f, 0.f);
    add_circle(s, .5f, .5f, .25f, .25f, 0.f, 0.f, 1.f);
    add_circle(s, .2f, .2f, .9f, .1f, 1.f, 1.f, 0.f);
    return s;
}

const float kPrimary[3][3] = {{1.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}};

Scene bouncing_balls(GlibcRand& u) {
    Scene s;
    s.resize(10);
    for (size_t i = 0; i < 10; ++i) {
        s.x[i] = u.next_float();
        s.y[i] = u.next_float();
        s.z[i] = u.next_float();
        s.radius[i] = .05f;
        set_color(s, i, kPrimary[i % 3][0], kPrimary[i % 3][1], kPrimary[i % 3][2]);
        s.vy[i] = u.next_float();
    }
    s.motion = Motion::BouncingBalls;
    return s;
}

Scene hypnosis(GlibcRand& u) {
    Scene s;
    s.resize(25);
    for (size_t i = 0; i < 25; ++i) {
        s.x[i] = .5f;
        s.y[i] = .5f;
        s.z[i] = 0.f;
        s.radius[i] = .02f + .02f * static_cast<float>(i);
        const float cr = u.next_float();
        const float cg = u.next_float();
        const float cb = u.next_float();
        set_color(s, i, cr, cg, cb);
    }
    s.motion = Motion::Hypnosis;
    return s;
}

Scene fireworks(GlibcRand& u) {
    const int kFireworks = 15, kSparks = 20;
    const float pi = 3.14159f;
    Scene s;
    s.resize(kFireworks + kFireworks * kSparks);
    s.aux_x.assign(s.count(), 0.f);
    s.aux_y.assign(s.count(), 0.f);
    for (int f = 0; f < kFireworks; ++f) {
        const float cx = u.next_float();
        const float cy = u.next_float();
        s.x[f] = cx;
        s.y[f] = cy;
        s.radius[f] = .005f;
        set_color(s, f, 1.f, 1.f, 1.f);
        s.aux_x[f] = cx;
        s.aux_y[f] = cy;
        for (int j = 0; j < kSparks; ++j) {
            const size_t k = kFireworks + kSparks * f + j;
            const float angle = static_cast<float>(j) * 2.f * pi / static_cast<float>(kSparks);
            const float ca = std::cos(angle), sa = std::sin(angle);
            s.x[k] = cx + ca * .005f;
            s.y[k] = cy + sa * .005f;
            s.aux_x[k] = s.x[k];
            s.aux_y[k] = s.y[k];
            s.vx[k] = ca / 5.f;
            s.vy[k] = sa / 5.f;
            s.radius[k] = .01f;
            set_color(s, k, kPrimary[f % 3][0], kPrimary[f % 3][1], kPrimary[f % 3][2]);
        }
    }
    s.motion = Motion::Fireworks;
    return s;
}

/// Snow flakes: depths from powf(i/N, .1) with jitter, sorted back to front,
/// sizes shrinking with depth. `still` spreads them over the picture
/// (y = u instead of snow's y = 1 + r + 2u): the project's deterministic
/// stand-in for snowsingle, whose flakes the course reads from snow.par
/// (render/scene_source.h decides which one a run gets).
Scene snow(GlibcRand& u, bool still) {
    const size_t n = 100000;
    Scene s;
    s.resize(n);
    std::vector<float> depth(n);
    for (size_t i = 0; i < n; ++i) {
        // The C library's powf, as the course's reference (SCENES.md, "snow").
        const float base = powf(static_cast<float>(i) / static_cast<float>(n), .1f);
        depth[i] = clamp_float(base + (-.05f + .1f * u.next_float()), 0.f, 1.f);
    }
    std::sort(depth.begin(), depth.end(), std::greater<float>());
    for (size_t i = 0; i < n; ++i) {
        const float d = depth[i];
        const float size = .08f - .0075f + .015f * u.next_float();
        float radius = (1.f - d) * size + d * size / 15.f;
        if (d < .02f)
            radius *= 3.f;
        else
            radius = std::max(radius, .0075f);
        s.radius[i] = radius;
        s.x[i] = u.next_float();
        s.y[i] = still ? u.next_float() : 1.f + radius + 2.f * u.next_float();
        s.z[i] = d;
        set_color(s, i, 1.f, 1.f, 1.f);
    }
    s.shade = ShadeMode::Snow;
    s.motion = still ? Motion::None : Motion::Snow;
    return s;
}

}  // namespace

const std::vector<std::string>& scene_names() {
    static const std::vector<std::string> names = {
        "rgb",      "rgby",    "rand10k",       "rand100k",  "rand1M",   "biglittle",
        "littlebig", "pattern", "micro2M",      "bouncingballs", "fireworks", "hypnosis",
        "snow",     "snowsingle", "rand10M"};
    return names;
}

bool is_scene_name(const std::string& name) {
    const auto& v = scene_names();
    return std::find(v.begin(), v.end(), name) != v.end();
}

static std::string joined_scene_names() {
    std::string all;
    for (const auto& n : scene_names()) all += (all.empty() ? "" : ", ") + n;
    return all;
}

size_t scene_circle_count(const std::string& name) {
    if (name == "rgb") return 3;
    if (name == "rgby") return 4;
    if (name == "rand10k" || name == "biglittle" || name == "littlebig") return 10000;
    if (name == "rand100k" || name == "snow" || name == "snowsingle") return 100000;
    if (name == "rand1M") return 1000000;
    if (name == "rand10M") return 10000000;
    if (name == "micro2M") return 2000000;
    if (name == "pattern") return 1217;
    if (name == "bouncingballs") return 10;
    if (name == "fireworks") return 315;
    if (name == "hypnosis") return 25;
    throw std::invalid_argument("unknown scene '" + name + "' (valid: " + joined_scene_names() + ")");
}

Scene make_scene(const std::string& name, uint32_t seed) {
    GlibcRand u(seed);
    Scene s;
    if (name == "rgb") s = rgb();
    else if (name == "rgby") s = rgby();
    else if (name == "rand10k") s = random_circles(10000, u);
    else if (name == "rand100k") s = random_circles(100000, u);
    else if (name == "rand1M") s = random_circles(1000000, u);
    else if (name == "rand10M") s = random_circles(10000000, u);
    else if (name == "biglittle") s = big_little(.85f, u);
    else if (name == "littlebig") s = big_little(.05f, u);
    else if (name == "pattern") s = pattern(u);
    else if (name == "micro2M") s = sized_circles(2000000, .001f, u);
    else if (name == "bouncingballs") s = bouncing_balls(u);
    else if (name == "hypnosis") s = hypnosis(u);
    else if (name == "fireworks") s = fireworks(u);
    else if (name == "snow") s = snow(u, false);
    else if (name == "snowsingle") s = snow(u, true);
    else throw std::invalid_argument("unknown scene '" + name + "' (valid: " + joined_scene_names() + ")");
    s.name = name;
    s.seed = seed;
    return s;
}

}  // namespace cr
