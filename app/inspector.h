// The pixel inspector: one chosen pixel of the image, its expected color
// (the reference renderer's), the student's color, and its pixel story (the
// circles covering it in input order with the expected color after each
// blend, render/pixel_story.h). Pixel (x, y): x from the left, y = row from
// the BOTTOM (row 0 at the bottom), as `render`'s pixel story.
#pragma once

#include <chrono>
#include <string>

#include "render/pixel_story.h"
#include "scene_tracker.h"
#include "session.h"
#include "student_lane.h"

namespace cr::app {

/// What the inspector shows about its pixel.
struct Inspection {
    bool valid = false;
    int x = 0, y = 0;
    int frame = 0;                 ///< the course's frame number of the image inspected
    std::string reference;         ///< the renderer whose color is "expected"
    float expected[4] = {0, 0, 0, 0};
    bool has_student = false;      ///< a student frame of the same frame exists
    float student[4] = {0, 0, 0, 0};
    PixelStory story;
};

/// See the file comment.
class Inspector {
public:
    using Clock = std::chrono::steady_clock;
    /// Chooses pixel (x, y) (outside the image: ignored).
    void select(int x, int y);
    /// Forgets the pixel.
    void clear();
    bool has_pixel() const { return x_ >= 0; }
    /// Brings the inspection up to date with the image shown. While playing
    /// it is refreshed at most kRefreshSeconds apart (the story advances the
    /// scene on the CPU); when paused or after select(), at once.
    void update(Session& s, const StudentLane& lane, SceneTracker& tracker, bool playing);
    const Inspection& result() const { return result_; }
    /// The inspection as lines of text (automated runs and "copy").
    std::string text() const;
    static constexpr double kRefreshSeconds = 0.25;

private:
    int x_ = -1, y_ = -1;
    bool dirty_ = false;
    int image_version_ = -1, lane_version_ = -1;
    Clock::time_point last_{};
    Inspection result_;
};

/// Parses "X,Y" (whole numbers >= 0) of --inspect; throws
/// std::invalid_argument naming the text.
void parse_pixel(const std::string& text, int& x, int& y);

}  // namespace cr::app
