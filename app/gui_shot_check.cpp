// gui_shot_check SCREENSHOT.png FRAME.png|- [--panel-width W] [--panel-uncut]
//                [--panel-has R,G,B]... [--ignore X0,Y0,X1,Y1]
//
// Checker of the GUI screenshot tests: FRAME (the renderer's image the app
// dumped with --dump-frame) must appear in SCREENSHOT (the window the app
// saved with --screenshot, image drawn 1:1) at some position, every channel
// within 2/255 ("-" skips this, e.g. when overlays cover the image); and the
// panel (the W columns at the left, default: everything left of the frame)
// must not be uniform. --panel-uncut: the panel's bottom rows, inside its
// border, are one colour: its content ended above the window's bottom edge
// (a cut-off panel draws text or a scrollbar there). --panel-has: a pixel
// of that colour (within 4/255) is in the panel, e.g. a legend's colour.
// --ignore: frame pixels X0..X1, Y0..Y1 (inclusive, from the frame's top-left)
// are not compared, e.g. where the pixel inspector marks its pixel.
// Exit 0 when all hold, 1 otherwise, 2 on bad input.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "render/image_io.h"

namespace {

/// RGB bytes, top row first, of an image read by cr::read_image.
struct Rgb8 {
    int w = 0, h = 0;
    std::vector<uint8_t> px;
    const uint8_t* at(int x, int y) const { return &px[3 * (static_cast<size_t>(y) * w + x)]; }
};

Rgb8 load(const char* path) {
    const cr::Image img = cr::read_image(path);
    Rgb8 out{img.width, img.height, std::vector<uint8_t>(img.pixel_count() * 3)};
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const float* p = img.pixel(x, img.height - 1 - y);  // row 0 of Image is the bottom
            for (int c = 0; c < 3; ++c)
                out.px[3 * (static_cast<size_t>(y) * img.width + x) + c] =
                    static_cast<uint8_t>(std::lround(p[c] * 255.f));
        }
    return out;
}

constexpr int kTolerance = 2;  // in 1/255 steps

/// Frame pixels the comparison skips (empty: none).
struct Box {
    int x0 = 1, y0 = 1, x1 = 0, y1 = 0;
    bool contains(int x, int y) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1; }
};

bool matches_at(const Rgb8& shot, const Rgb8& frame, int ox, int oy, const Box& ignore) {
    for (int y = 0; y < frame.h; ++y)
        for (int x = 0; x < frame.w; ++x) {
            if (ignore.contains(x, y)) continue;
            const uint8_t* a = shot.at(ox + x, oy + y);
            const uint8_t* b = frame.at(x, y);
            for (int c = 0; c < 3; ++c)
                if (std::abs(int(a[c]) - int(b[c])) > kTolerance) return false;
        }
    return true;
}

/// Command-line options after the two file names.
struct Options {
    int panel_width = -1;  ///< -1: everything left of the frame
    bool panel_uncut = false;
    std::vector<std::array<int, 3>> panel_has;
    Box ignore;
};

bool parse_options(int argc, char** argv, Options& o) {
    for (int i = 3; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--panel-uncut") {
            o.panel_uncut = true;
        } else if (a == "--panel-width" && i + 1 < argc) {
            o.panel_width = std::atoi(argv[++i]);
        } else if (a == "--ignore" && i + 1 < argc) {
            Box& b = o.ignore;
            if (std::sscanf(argv[++i], "%d,%d,%d,%d", &b.x0, &b.y0, &b.x1, &b.y1) != 4) return false;
        } else if (a == "--panel-has" && i + 1 < argc) {
            std::array<int, 3> c{};
            if (std::sscanf(argv[++i], "%d,%d,%d", &c[0], &c[1], &c[2]) != 3) return false;
            o.panel_has.push_back(c);
        } else {
            return false;
        }
    }
    return true;
}

/// Searches the screenshot for the frame drawn 1:1; false when absent.
bool find_frame(const Rgb8& shot, const Rgb8& frame, const Box& ignore, int& found_x, int& found_y) {
    if (frame.w > shot.w || frame.h > shot.h) {
        std::printf("FAIL: the frame is larger than the screenshot\n");
        return false;
    }
    for (int oy = 0; oy + frame.h <= shot.h; ++oy)
        for (int ox = 0; ox + frame.w <= shot.w; ++ox)
            if (matches_at(shot, frame, ox, oy, ignore)) {
                found_x = ox;
                found_y = oy;
                std::printf("frame found at x=%d y=%d (from the top-left)\n", found_x, found_y);
                return true;
            }
    std::printf("FAIL: the rendered frame does not appear 1:1 in the screenshot (tolerance %d/255)\n", kTolerance);
    return false;
}

/// The distinct colours in columns [x0, x1) of rows [y0, y1).
std::set<uint32_t> colours_in(const Rgb8& shot, int x0, int x1, int y0, int y1) {
    std::set<uint32_t> colours;
    for (int y = std::max(y0, 0); y < std::min(y1, shot.h); ++y)
        for (int x = std::max(x0, 0); x < std::min(x1, shot.w); ++x) {
            const uint8_t* p = shot.at(x, y);
            colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
        }
    return colours;
}

/// The panel checks on columns [0, width); returns true when all pass.
bool check_panel(const Rgb8& shot, int width, const Options& o) {
    const std::set<uint32_t> colours = colours_in(shot, 0, width, 0, shot.h);
    std::printf("panel region: %d columns, %zu distinct colours\n", width, colours.size());
    bool ok = true;
    if (colours.size() < 16) {
        std::printf("FAIL: the panel region is (nearly) uniform: no panel drawn\n");
        ok = false;
    }
    if (o.panel_uncut) {
        // Inside the 1-pixel border and the window padding, the bottom 8 rows.
        const size_t n = colours_in(shot, 4, width - 4, shot.h - 10, shot.h - 2).size();
        std::printf("panel bottom rows: %zu colour(s)\n", n);
        if (n != 1) {
            std::printf("FAIL: the panel's content reaches its bottom edge (cut off)\n");
            ok = false;
        }
    }
    for (const auto& want : o.panel_has) {
        bool found = false;
        for (uint32_t c : colours)
            found = found || (std::abs(int(c >> 16) - want[0]) <= 4 && std::abs(int((c >> 8) & 255) - want[1]) <= 4 &&
                              std::abs(int(c & 255) - want[2]) <= 4);
        std::printf("panel colour %d,%d,%d: %s\n", want[0], want[1], want[2], found ? "present" : "MISSING");
        ok = ok && found;
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    if (argc < 3 || !parse_options(argc, argv, opt)) {
        std::fprintf(stderr, "usage: gui_shot_check SCREENSHOT.png FRAME.png|- [--panel-width W] [--panel-uncut] "
                             "[--panel-has R,G,B]... [--ignore X0,Y0,X1,Y1]\n");
        return 2;
    }
    const bool with_frame = std::string(argv[2]) != "-";
    Rgb8 shot, frame;
    try {
        shot = load(argv[1]);
        if (with_frame) frame = load(argv[2]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gui_shot_check: %s\n", e.what());
        return 2;
    }
    std::printf("screenshot %dx%d, frame %dx%d\n", shot.w, shot.h, frame.w, frame.h);
    int found_x = -1, found_y = -1;
    if (with_frame && !find_frame(shot, frame, opt.ignore, found_x, found_y)) return 1;
    const int width = opt.panel_width > 0 ? std::min(opt.panel_width, shot.w) : found_x;
    if (width <= 0) {
        std::fprintf(stderr, "gui_shot_check: give --panel-width without a frame\n");
        return 2;
    }
    if (!check_panel(shot, width, opt)) return 1;
    std::printf("PASS\n");
    return 0;
}
