#include "student_lane.h"

#include <algorithm>

#include "render/frame_loop.h"
#include "render/renderer_factory.h"
#include "render/student/protocol.h"

namespace cr::app {

namespace {
constexpr size_t kMismatchHistory = 240;  ///< frames kept for the mismatch plot
}  // namespace

void StudentLane::load(const std::string& library, double call_timeout_s, const std::string& standin) {
    unload();
    try {
        if (!standin.empty()) {
            renderer_ = make_renderer(standin);
        } else {
            student::StudentOptions o;
            o.library = library;
            o.call_timeout_s = call_timeout_s;
            auto r = std::make_unique<student::StudentRenderer>(o);
            student_ = r.get();
            renderer_ = std::move(r);
        }
        state_ = State::Ready;
    } catch (const std::exception& e) {
        record_fault(e, "starting the student's renderer");
    }
}

void StudentLane::unload() {
    student_ = nullptr;
    renderer_.reset();
    state_ = State::Empty;
    fault_ = StudentFaultInfo{};
    image_ = Image{};
    compare_ = LaneCompare{};
    mismatch_history_.clear();
    log_.reset();
    timing_label_.clear();
    frames_rendered_ = 0;
    synced_image_version_ = setup_version_ = -1;
}

void StudentLane::restart_worker() {
    if (!renderer_) return;
    if (student_) student_->restart();
    fault_ = StudentFaultInfo{};
    state_ = State::Ready;
    synced_image_version_ = setup_version_ = -1;
}

void StudentLane::record_fault(const std::exception& e, const std::string& during) {
    fault_ = StudentFaultInfo{};
    if (const auto* f = dynamic_cast<const student::StudentFault*>(&e)) {
        fault_.what = f->what();
        fault_.call = student::call_name(f->call);
        fault_.frame = f->frame;
    } else if (dynamic_cast<const NoCudaDeviceError*>(&e)) {
        fault_.what = e.what();
        fault_.call = "its first CUDA call";
        fault_.no_gpu = true;
    } else {
        fault_.what = "student renderer: " + std::string(e.what());
        fault_.call = during;
    }
    state_ = State::Faulted;
}

void StudentLane::setup_for(const Session& s, int target) {
    setup_at_frame(*renderer_, s.scene(), s.width(), s.height(), target);
    setup_version_ = s.setup_version();
    timing_label_ = timing_label_of(*renderer_);
    log_.reset();
}

bool StudentLane::sync(Session& s) {
    if (!renderer_ || (state_ != State::Ready && state_ != State::Running)) return false;
    if (!s.renderer() || s.needs_frame() || s.image_version() == synced_image_version_) return false;
    const int target = s.frame();  // the session's image shows the circles after `target` steps
    if (target < 1) return false;
    synced_image_version_ = s.image_version();
    try {
        if (setup_version_ != s.setup_version() || renderer_->frame() != target - 1) setup_for(s, target);
        const std::vector<StageTime> times = render_next_frame(*renderer_);
        image_ = renderer_->image();
        log_.add(times);
        s.timing_board().add("student", timing_label_, s.scene_label(), s.width(), s.height(), times);
    } catch (const std::exception& e) {
        record_fault(e, "a frame");
        return false;
    }
    state_ = State::Running;
    ++image_version_;
    ++frames_rendered_;
    compare_with(s, target);
    return true;
}

void StudentLane::compare_with(Session& s, int target) {
    const Image* ref = nullptr;
    try {
        ref = &s.renderer()->image();
    } catch (const std::exception& e) {
        s.renderer_failed(e);
        compare_.valid = false;
        return;
    }
    compare_.valid = true;
    compare_.frame = target - 1;
    compare_.reference = s.renderer_name();
    compare_.stats = compare_images(image_, *ref, kStrictTolerance);
    compare_.pass_course = compare_.stats.same_size && compare_.stats.mismatches_course <= kAllowedMismatches;
    mismatch_history_.push_back(static_cast<float>(compare_.stats.mismatches_strict));
    if (mismatch_history_.size() > kMismatchHistory) mismatch_history_.erase(mismatch_history_.begin());
}

}  // namespace cr::app
