// Why is this pixel wrong? The first mismatching pixels of a check, and the
// "pixel story" of one: the background, then every circle covering it in
// input order with the expected color after each blend (the math of
// render/core/shading.h, as cpuref computes it), so a student sees a wrong
// blend order or a missed rim pixel at a glance.
//
// Pixel coordinates: x = column from the left, y = row from the BOTTOM (row
// 0 is the bottom of the picture, as in the course's images in memory).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "render/core/circles.h"
#include "render/core/image.h"

namespace cr {

/// One pixel that fails a comparison.
struct PixelMismatch {
    int x = 0, y = 0;
    float expected[4] = {0, 0, 0, 0};
    float got[4] = {0, 0, 0, 0};
};

/// The first `max_count` pixels (scan order: row 0 first, left to right) where
/// any of R, G, B of `test` differs from `reference` by more than `tolerance`
/// (or is not finite). Images of different sizes give none.
std::vector<PixelMismatch> first_mismatches(const Image& test, const Image& reference, float tolerance,
                                            size_t max_count);

/// One circle's blend into the pixel.
struct StoryStep {
    size_t circle = 0;            ///< index in input order
    float x = 0, y = 0, radius = 0, z = 0;  ///< normalized scene units
    float color[3] = {0, 0, 0};   ///< the fragment's color (snow: the ramp's)
    float alpha = 0;
    float after[4] = {0, 0, 0, 0};  ///< RGBA after this blend
};

/// The expected history of pixel (x, y).
struct PixelStory {
    int x = 0, y = 0;
    float background[4] = {0, 0, 0, 0};  ///< after clear
    std::vector<StoryStep> steps;        ///< at most the max_steps first covering circles
    size_t covering = 0;                 ///< all covering circles
    float final_rgba[4] = {0, 0, 0, 0};  ///< after every covering circle
};

/// The story of pixel (x, y) of a width x height image of `scene` as it is
/// (already advanced to the frame in question: see scene_at_frame).
PixelStory pixel_story(const Scene& scene, int width, int height, int x, int y, size_t max_steps = 40);

/// A copy of `scene` advanced on the CPU by `frames` animation steps (the
/// circles of frame frames - 1 in the course's numbering).
Scene scene_at_frame(const Scene& scene, int frames);

/// R, G and B of `rgb` (three floats, 0..1 for colors in range) as
/// "(0.2500, 0.5000, 0.7500)": four decimals, as the pixel story prints them.
std::string rgb_text(const float* rgb);

/// The report printed when a check fails: how many pixels differ, the first
/// few (x, y, expected, got), and the story of the first.
std::string describe_mismatches(const Image& test, const Image& reference, float tolerance, long long count,
                                const Scene& scene_at_frame, size_t show = 5);

}  // namespace cr
