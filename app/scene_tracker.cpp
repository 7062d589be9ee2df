#include "scene_tracker.h"

#include "render/cpu/cpu_stages.h"

namespace cr::app {

const Scene& SceneTracker::at(const Session& s, int steps) {
    if (s.scene_version() != scene_version_ || steps < steps_) {
        scene_ = s.scene();
        scene_version_ = s.scene_version();
        steps_ = 0;
    }
    for (; steps_ < steps; ++steps_)
        advance_circles(scene_, 0, static_cast<int64_t>(scene_.count()));
    return scene_;
}

}  // namespace cr::app
