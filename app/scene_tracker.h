// The session's scene as it is at the frame shown, on the CPU, for the pixel
// inspector and the teaching overlays. Kept advanced step by step, so playing
// an animation costs one step a frame, not a replay from the start.
#pragma once

#include "scenes/scene.h"
#include "session.h"

namespace cr::app {

/// See the file comment.
class SceneTracker {
public:
    /// The session's scene after `steps` animation steps (Session::frame():
    /// the circles of the image shown). Replays from the start only when the
    /// scene changed or `steps` went backwards.
    const Scene& at(const Session& s, int steps);
    /// Steps of the scene at() returned last.
    int steps() const { return steps_; }

private:
    Scene scene_;
    int scene_version_ = -1;
    int steps_ = 0;
};

}  // namespace cr::app
