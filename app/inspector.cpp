#include "inspector.h"

#include <stdexcept>

#include "render/core/numbers.h"
#include "render/options.h"

namespace cr::app {

void Inspector::select(int x, int y) {
    if (x < 0 || y < 0) return;
    x_ = x;
    y_ = y;
    dirty_ = true;
}

void Inspector::clear() {
    x_ = y_ = -1;
    result_ = Inspection{};
}

void Inspector::update(Session& s, const StudentLane& lane, SceneTracker& tracker, bool playing) {
    if (x_ < 0 || !s.renderer() || s.needs_frame()) return;
    const bool changed = dirty_ || s.image_version() != image_version_ || lane.image_version() != lane_version_;
    const auto now = Clock::now();
    if (!changed || (playing && !dirty_ && now - last_ < std::chrono::duration<double>(kRefreshSeconds))) return;
    if (x_ >= s.width() || y_ >= s.height()) {  // the image shrank: keep the pixel for later, show nothing
        result_.valid = false;
        return;
    }
    Inspection in;
    try {
        const Image& ref = s.renderer()->image();
        for (int c = 0; c < 4; ++c) in.expected[c] = ref.pixel(x_, y_)[c];
    } catch (const std::exception& e) {
        s.renderer_failed(e);
        return;
    }
    in.valid = true;
    in.x = x_;
    in.y = y_;
    in.frame = std::max(s.frame() - 1, 0);
    in.reference = s.renderer_name();
    const LaneCompare& c = lane.compare();
    in.has_student = c.valid && c.frame == in.frame && lane.image().width == s.width() && lane.image().height == s.height();
    if (in.has_student)
        for (int k = 0; k < 4; ++k) in.student[k] = lane.image().pixel(x_, y_)[k];
    in.story = pixel_story(tracker.at(s, s.frame()), s.width(), s.height(), x_, y_);
    result_ = std::move(in);
    dirty_ = false;
    image_version_ = s.image_version();
    lane_version_ = lane.image_version();
    last_ = now;
}

std::string Inspector::text() const {
    const Inspection& in = result_;
    if (!in.valid) return "no pixel inspected";
    std::string t = "pixel (" + std::to_string(in.x) + ", " + std::to_string(in.y) + ") (row 0 at the bottom), frame " +
                    std::to_string(in.frame) + ": expected " + rgb_text(in.expected) + " from " + in.reference +
                    ", student " + (in.has_student ? rgb_text(in.student) : std::string("-")) + "\n";
    t += std::to_string(in.story.covering) + " circle(s) cover it; background " + rgb_text(in.story.background) + "\n";
    for (const StoryStep& st : in.story.steps)
        t += "  circle " + std::to_string(st.circle) + ": color " + rgb_text(st.color) + " alpha " +
             std::to_string(st.alpha).substr(0, 6) + " -> " + rgb_text(st.after) + "\n";
    if (in.story.steps.size() < in.story.covering)
        t += "  ... (" + std::to_string(in.story.covering - in.story.steps.size()) + " more)\n";
    return t;
}

void parse_pixel(const std::string& text, int& x, int& y) {
    const size_t comma = text.find(',');
    if (comma == std::string::npos)
        throw std::invalid_argument("bad --inspect '" + text + "': use X,Y (pixel column, row from the bottom)");
    x = parse_whole_number(text.substr(0, comma), "--inspect X", 0, kMaxImageSide - 1, "use X,Y with 0 <= X, Y < 16384");
    y = parse_whole_number(text.substr(comma + 1), "--inspect Y", 0, kMaxImageSide - 1, "use X,Y with 0 <= X, Y < 16384");
}

}  // namespace cr::app
