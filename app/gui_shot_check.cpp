// gui_shot_check SCREENSHOT.png FRAME.png
//
// Checker of the GUI screenshot test: FRAME (the renderer's image the app
// dumped with --dump-frame) must appear in SCREENSHOT (the window the app
// saved with --screenshot, image drawn 1:1) at some position, every channel
// within 2/255; and the window left of the image (the panel) must not be
// uniform. Exit 0 when both hold, 1 otherwise, 2 on bad input.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <set>
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

bool matches_at(const Rgb8& shot, const Rgb8& frame, int ox, int oy) {
    for (int y = 0; y < frame.h; ++y)
        for (int x = 0; x < frame.w; ++x) {
            const uint8_t* a = shot.at(ox + x, oy + y);
            const uint8_t* b = frame.at(x, y);
            for (int c = 0; c < 3; ++c)
                if (std::abs(int(a[c]) - int(b[c])) > kTolerance) return false;
        }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: gui_shot_check SCREENSHOT.png FRAME.png\n");
        return 2;
    }
    Rgb8 shot, frame;
    try {
        shot = load(argv[1]);
        frame = load(argv[2]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gui_shot_check: %s\n", e.what());
        return 2;
    }
    std::printf("screenshot %dx%d, frame %dx%d\n", shot.w, shot.h, frame.w, frame.h);
    if (frame.w > shot.w || frame.h > shot.h) {
        std::printf("FAIL: the frame is larger than the screenshot\n");
        return 1;
    }
    int found_x = -1, found_y = -1;
    for (int oy = 0; oy + frame.h <= shot.h && found_x < 0; ++oy)
        for (int ox = 0; ox + frame.w <= shot.w; ++ox)
            if (matches_at(shot, frame, ox, oy)) {
                found_x = ox;
                found_y = oy;
                break;
            }
    if (found_x < 0) {
        std::printf("FAIL: the rendered frame does not appear 1:1 in the screenshot (tolerance %d/255)\n",
                    kTolerance);
        return 1;
    }
    std::printf("frame found at x=%d y=%d (from the top-left)\n", found_x, found_y);

    // The panel: everything left of the image.
    std::set<uint32_t> colours;
    for (int y = 0; y < shot.h; ++y)
        for (int x = 0; x < found_x; ++x) {
            const uint8_t* p = shot.at(x, y);
            colours.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
        }
    std::printf("panel region: %d columns, %zu distinct colours\n", found_x, colours.size());
    if (colours.size() < 16) {
        std::printf("FAIL: the panel region is (nearly) uniform: no panel drawn\n");
        return 1;
    }
    std::printf("PASS\n");
    return 0;
}
