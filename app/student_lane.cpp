#include "student_lane.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <system_error>
#include <type_traits>

#include "render/frame_loop.h"
#include "render/image_io.h"
#include "render/renderer_factory.h"
#include "render/student/protocol.h"

namespace cr::app {

namespace {
constexpr size_t kMismatchHistory = 240;  ///< frames kept for the mismatch plot
constexpr size_t kRateFrames = 32;        ///< student frames kept for the frame rate

double seconds_since(StudentLane::Clock::time_point t) {
    return std::chrono::duration<double>(StudentLane::Clock::now() - t).count();
}
}  // namespace

StudentLane::StudentLane() : thread_([this] { thread_main(); }) {}

StudentLane::~StudentLane() {
    kill_busy_worker();
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
        jobs_.clear();
    }
    cv_.notify_all();
    thread_.join();
}

// ---------------------------------------------------------------- lane thread

void StudentLane::thread_main() {
    int faulted_generation = -1;  ///< a frame of it faulted: its later frames are not run
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(m_);
            cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
            if (stop_) break;
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        Result r;
        if (job.kind == Job::Kind::Frame && job.generation == faulted_generation) {
            // queued behind the frame that faulted: running it would start a new worker for code that
            // just crashed or hung; it frees its place in the lane, and the first fault stays the one said
            r.generation = job.generation;
            r.ok = false;
            r.fault.what = "student renderer: not run after the frame before it failed";
            r.fault.call = "a frame";
        } else {
            r = run(job);
            if (job.kind == Job::Kind::Frame && !r.ok) faulted_generation = job.generation;
        }
        if (r.kind == Job::Kind::Frame && r.ok) {
            compare_later(std::move(r));
            continue;
        }
        finish_compare();  // results stay in order
        std::lock_guard<std::mutex> lock(m_);
        results_.push_back(std::move(r));
    }
    finish_compare();
    {
        std::lock_guard<std::mutex> lock(m_);
        student_ = nullptr;
    }
    renderer_.reset();  // the worker quits here, not on the window's thread
}

namespace {
/// f() on a thread of its own, or here and now when no thread can be made
/// (std::async throws std::system_error then): its result either way.
template <class F>
auto beside(const F& f) -> std::future<decltype(f())> {
    try {
        return std::async(std::launch::async, f);
    } catch (const std::system_error&) {
        std::promise<decltype(f())> p;
        if constexpr (std::is_void_v<decltype(f())>) {
            f();
            p.set_value();
        } else {
            p.set_value(f());
        }
        return p.get_future();
    }
}
}  // namespace

void StudentLane::finish_compare() {
    if (comparing_.valid()) comparing_.get();
}

void StudentLane::compare_later(Result r) {
    finish_compare();
    Result free_now;
    free_now.kind = Job::Kind::Frame;
    free_now.generation = r.generation;
    free_now.rendered_only = true;
    {
        std::lock_guard<std::mutex> lock(m_);
        results_.push_back(std::move(free_now));
    }
    // the frame and the promise live here, so that they survive a task that cannot be started
    // (beside() then compares here, and the window waits meanwhile)
    struct Pending {
        Result r;
        std::promise<void> copied;
    };
    auto p = std::make_shared<Pending>();
    p->r = std::move(r);
    copied_ = p->copied.get_future();
    comparing_ = beside([this, p] { compare_task(p->r, p->copied); });
}

void StudentLane::compare_task(Result& r, std::promise<void>& copied) {
    const Clock::time_point t = Clock::now();
    // each pair writes disjoint members of r; the second reads what the first wrote
    std::future<bool> reading = beside([&] {
        return guarded("reading the reference's frame", [&] { read_reference(r); });
    });
    bool ok = guarded("copying your frame", [&] { copy_out(r); });
    copied.set_value();  // always: the lane waits for it before its next getImage()
    ok = reading.get() && ok;
    if (!ok) r.compare.valid = false;
    std::future<bool> converting = beside([&] {
        return guarded("converting your frame", [&] { convert(r); });  // when it fails the window converts
    });
    ok = guarded("comparing your frame", [&] { compare(r); }) && ok;
    converting.get();
    if (!ok) {  // this frame has no comparison
        r.compare.valid = false;
        r.reference = Image{};
    }
    r.phases_ms[3] = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    std::lock_guard<std::mutex> lock(m_);
    results_.push_back(std::move(r));
}

template <class F>
bool StudentLane::guarded(const char* what, F&& f) {
    try {
        f();
        return true;
    } catch (const std::exception& e) {  // ours, not the student's: this frame has no comparison
        std::fprintf(stderr, "circle-renderer: %s: %s\n", what, e.what());
        return false;
    }
}

void StudentLane::copy_out(Result& r) {
    if (!r.shared.pixels) return;
    r.shared.copy_to(r.image);
    r.shared = {};
}

void StudentLane::read_reference(Result& r) {
    if (!r.snapshot) return;
    const std::shared_ptr<ReferenceSnapshot> snap = std::move(r.snapshot);
    r.reference = pooled_image();
    snap->read(r.reference);
}

void StudentLane::compare(Result& r) {
    if (!r.compare.valid) return;
    r.compare.stats = compare_images(r.image, r.reference, kStrictTolerance);
    r.compare.pass_course = r.compare.stats.same_size && r.compare.stats.mismatches_course <= kAllowedMismatches;
}

void StudentLane::convert(Result& r) {
    {
        std::lock_guard<std::mutex> lock(m_);
        if (!rgba_pool_.empty()) {
            r.display_rgba8 = std::move(rgba_pool_.back());
            rgba_pool_.pop_back();
        }
    }
    to_rgb8_top_down(r.image, /*with_alpha=*/true, r.display_rgba8);
}

Image StudentLane::pooled_image() {
    std::lock_guard<std::mutex> lock(m_);
    if (pool_.empty()) return Image{};
    Image img = std::move(pool_.back());
    pool_.pop_back();
    return img;
}

void StudentLane::recycle(Image&& image) {
    constexpr size_t kPoolImages = 6;  ///< kept at most (up to 3 frames' image and reference are in use, 2 shown)
    if (image.data.capacity() == 0) return;
    std::lock_guard<std::mutex> lock(m_);
    if (pool_.size() < kPoolImages) pool_.push_back(std::move(image));
}

StudentFaultInfo StudentLane::fault_of(const std::exception& e, const std::string& during) {
    StudentFaultInfo f;
    if (const auto* sf = dynamic_cast<const student::StudentFault*>(&e)) {
        f.what = sf->what();
        f.call = student::call_name(sf->call);
        f.frame = sf->frame;
    } else if (dynamic_cast<const NoCudaDeviceError*>(&e)) {
        f.what = e.what();
        f.call = "its first CUDA call";
        f.no_gpu = true;
    } else {
        f.what = "student renderer: " + std::string(e.what());
        f.call = during;
    }
    return f;
}

StudentLane::Result StudentLane::run(Job& job) {
    Result r;
    r.kind = job.kind;
    r.generation = job.generation;
    if (job.kind == Job::Kind::Frame) {
        run_frame(job, r);
        return r;
    }
    if (job.kind == Job::Kind::Restart) {
        if (student_) student_->restart();
        return r;
    }
    {
        std::lock_guard<std::mutex> lock(m_);
        student_ = nullptr;
    }
    renderer_.reset();
    if (job.kind == Job::Kind::Unload) return r;
    try {
        if (!job.standin.empty()) {
            renderer_ = make_renderer(job.standin);
        } else {
            auto sr = std::make_unique<student::StudentRenderer>(job.options);
            r.log_path = sr->log_path();
            std::lock_guard<std::mutex> lock(m_);
            student_ = sr.get();
            renderer_ = std::move(sr);
        }
    } catch (const std::exception& e) {
        r.ok = false;
        r.fault = fault_of(e, "starting the student's renderer");
    }
    return r;
}

void StudentLane::run_frame(Job& job, Result& r) {
    r.scene_label = job.scene_label;
    r.width = job.width;
    r.height = job.height;
    r.set_up = job.scene.has_value();
    if (!renderer_) {
        r.ok = false;
        r.fault.what = "student renderer: not loaded";
        r.fault.call = "a frame";
        return;
    }
    const auto ms_since = [](Clock::time_point& t) {
        const Clock::time_point now = Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - t).count();
        t = now;
        return ms;
    };
    Clock::time_point t = Clock::now();
    try {
        if (job.scene) {
            setup_at_frame(*renderer_, *job.scene, job.width, job.height, job.target);
            timing_label_ = timing_label_of(*renderer_);
        }
        for (int k = 0; k < job.catch_up; ++k) renderer_->advance();  // the frames the session drew meanwhile
        r.phases_ms[0] = ms_since(t);
        r.times = render_next_frame(*renderer_);
        r.phases_ms[1] = ms_since(t);
        r.image = pooled_image();  // the comparison task copies the student's frame into it
        if (student_) {
            if (copied_.valid()) copied_.get();  // the last frame is out of the memory the worker writes next
            r.shared = student_->fetch_image();
        } else {
            r.image = renderer_->image();
        }
        r.phases_ms[2] = ms_since(t);
    } catch (const std::exception& e) {
        r.ok = false;
        r.fault = fault_of(e, "a frame");
        return;
    }
    r.timing_label = timing_label_;
    r.compare.valid = true;
    r.compare.frame = job.target - 1;
    r.compare.reference = job.reference_name;
    r.reference = std::move(job.reference);  // compared by compare_later
    r.snapshot = std::move(job.snapshot);
}

// ---------------------------------------------------------------- window thread

void StudentLane::post(Job job) {
    {
        std::lock_guard<std::mutex> lock(m_);
        jobs_.push_back(std::move(job));
    }
    cv_.notify_all();
}

void StudentLane::kill_busy_worker() {
    std::lock_guard<std::mutex> lock(m_);
    if (student_ && (in_flight_ > 0 || student_->call_in_progress() != student::Call::None))
        student_->kill_from_any_thread();
}

void StudentLane::drop_queued_frames() {
    std::lock_guard<std::mutex> lock(m_);
    jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(), [](const Job& j) { return j.kind == Job::Kind::Frame; }),
                jobs_.end());
}

void StudentLane::load(const student::StudentOptions& options, const std::string& standin) {
    unload();
    Job j;
    j.kind = Job::Kind::Load;
    j.generation = generation_;
    j.options = options;
    j.standin = standin;
    post(std::move(j));
    state_ = State::Ready;
}

void StudentLane::unload() {
    drop_queued_frames();  // first: none of them may start on the worker killed next
    kill_busy_worker();
    ++generation_;  // whatever is still in flight is dropped when it comes back
    Job j;
    j.kind = Job::Kind::Unload;
    j.generation = generation_;
    post(std::move(j));
    in_flight_ = 0;
    state_ = State::Empty;
    fault_ = StudentFaultInfo{};
    image_ = Image{};
    reference_ = Image{};
    display_rgba8_.clear();
    compare_ = LaneCompare{};
    mismatch_history_.clear();
    frame_times_.clear();
    log_.reset();
    log_path_.clear();
    frames_rendered_ = setups_ = 0;
    phase_sums_ms_ = {};
    synced_image_version_ = lane_setup_version_ = lane_frame_ = -1;
}

void StudentLane::restart_worker() {
    if (state_ == State::Empty) return;
    drop_queued_frames();
    kill_busy_worker();
    ++generation_;
    Job j;
    j.kind = Job::Kind::Restart;
    j.generation = generation_;
    post(std::move(j));
    in_flight_ = 0;
    fault_ = StudentFaultInfo{};
    state_ = State::Ready;
    synced_image_version_ = lane_setup_version_ = lane_frame_ = -1;
}

void StudentLane::take(Result& r, Session& s) {
    if (r.set_up) {
        log_.reset();
        ++setups_;
    }
    for (size_t i = 0; i < phase_sums_ms_.size(); ++i) phase_sums_ms_[i] += r.phases_ms[i];
    log_.add(r.times);
    s.timing_board().add("student", r.timing_label, r.scene_label, r.width, r.height, r.times);
    std::swap(image_, r.image);
    std::swap(reference_, r.reference);
    recycle(std::move(r.image));  // the images shown until now
    recycle(std::move(r.reference));
    std::swap(display_rgba8_, r.display_rgba8);
    if (r.display_rgba8.capacity()) {  // the pixels shown until now: the next conversion reuses them
        std::lock_guard<std::mutex> lock(m_);
        if (rgba_pool_.size() < kFramesInFlight + 1) rgba_pool_.push_back(std::move(r.display_rgba8));
    }
    compare_ = r.compare;
    mismatch_history_.push_back(static_cast<float>(compare_.stats.mismatches_strict));
    if (mismatch_history_.size() > kMismatchHistory) mismatch_history_.erase(mismatch_history_.begin());
    frame_times_.push_back(Clock::now());
    if (frame_times_.size() > kRateFrames) frame_times_.erase(frame_times_.begin());
    state_ = State::Running;
    ++image_version_;
    ++frames_rendered_;
}

void StudentLane::take_reference(Session& s, Job& j) {
    constexpr size_t kSnapshots = kFramesInFlight + 2;  ///< in use at most: the jobs', one comparison's
    std::shared_ptr<ReferenceSnapshot> snap;
    for (const auto& k : snapshots_)
        if (k.use_count() == 1) snap = k;  // neither a job nor a comparison holds it
    // the comparison's last use of it happens before its release of the
    // shared_ptr; this fence orders that before our reuse
    std::atomic_thread_fence(std::memory_order_acquire);
    if (!snap && snapshots_.size() < kSnapshots) snap = snapshots_.emplace_back(std::make_shared<ReferenceSnapshot>());
    if (snap && snap->take(*s.renderer(), s.width(), s.height())) {
        j.snapshot = snap;
        return;
    }
    j.reference = pooled_image();
    j.reference = s.renderer()->image();  // into the pooled buffer's memory
}

bool StudentLane::rate_allows_post() {
    const Clock::time_point now = Clock::now();
    const double dt = std::chrono::duration<double>(now - credit_time_).count();
    credit_time_ = now;
    if (max_rate_ <= 0) return true;
    post_credit_ = std::min(post_credit_ + dt * max_rate_, static_cast<double>(kFramesInFlight));
    return post_credit_ >= 1;
}

void StudentLane::post_frame(Session& s) {
    if (in_flight_ >= kFramesInFlight || (state_ != State::Ready && state_ != State::Running)) return;
    if (!s.renderer() || s.needs_frame() || s.image_version() == synced_image_version_) return;
    if (!rate_allows_post()) return;
    const int target = s.frame();  // the session's image shows the circles after `target` steps
    if (target < 1) return;
    Job j;
    j.generation = generation_;
    j.width = s.width();
    j.height = s.height();
    j.target = target;
    j.reference_name = s.renderer_name();
    j.scene_label = s.scene_label();
    try {
        take_reference(s, j);
    } catch (const std::exception& e) {
        s.renderer_failed(e);
        return;
    }
    // Set up again only for a new setup or when the session went back; a lane
    // that fell behind (the session drew frames meanwhile) advances instead,
    // which is what a fresh setup would do too, without its allocations.
    const bool same_run = lane_setup_version_ == s.setup_version() && lane_frame_ >= 0 && lane_frame_ <= target - 1;
    if (same_run) j.catch_up = target - 1 - lane_frame_;
    else j.scene = s.scene();
    lane_setup_version_ = s.setup_version();
    lane_frame_ = target;  // after the frame, the lane's renderer has advanced `target` steps
    synced_image_version_ = s.image_version();
    if (in_flight_++ == 0) {  // else it starts when the one before it is drawn (sync)
        job_start_ = Clock::now();
        job_frame_ = target - 1;
    }
    next_frame_ = target - 1;
    if (max_rate_ > 0) post_credit_ -= 1;
    post(std::move(j));
}

bool StudentLane::sync(Session& s) {
    std::deque<Result> done;
    {
        std::lock_guard<std::mutex> lock(m_);
        done.swap(results_);
    }
    bool arrived = false;
    for (Result& r : done) {
        if (r.generation != generation_) continue;  // from before a load, unload or restart
        // A frame frees the lane with its marker (or its fault, which comes
        // without one); its whole result, later, does not: by then the
        // window may have posted the next frame.
        if (r.kind == Job::Kind::Frame && (r.rendered_only || !r.ok) && in_flight_ > 0 && --in_flight_ > 0) {
            job_start_ = Clock::now();  // the frame after it, posted meanwhile, is drawn from now on
            job_frame_ = next_frame_;
        }
        if (r.rendered_only) continue;  // its image and comparison come next
        if (!r.ok) {
            if (state_ != State::Faulted) fault_ = r.fault;  // the first fault is the one to report
            state_ = State::Faulted;
        } else if (r.kind == Job::Kind::Load) {
            log_path_ = r.log_path;
        } else if (r.kind == Job::Kind::Frame && state_ != State::Faulted) {
            take(r, s);
            arrived = true;
        }
    }
    post_frame(s);
    return arrived;
}

std::string StudentLane::waiting_line(double after_s) const {
    if (!in_flight_) return "";
    const double waited = seconds_since(job_start_);
    if (waited < after_s) return "";
    student::Call call = student::Call::None;
    int frame = job_frame_;
    {
        std::lock_guard<std::mutex> lock(m_);
        if (student_) {
            call = student_->call_in_progress();
            if (call != student::Call::None && student_->frame_in_progress() >= 0) frame = student_->frame_in_progress();
        }
    }
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", waited);
    if (call == student::Call::None)
        return "your renderer has not finished frame " + std::to_string(frame) + " for " + secs + " s";
    return std::string(student::call_name(call)) + " has not returned for " + secs + " s" +
           (call == student::Call::Setup || call == student::Call::LoadScene || call == student::Call::Constructor ||
                    call == student::Call::AllocOutputImage || call == student::Call::LoadLibrary
                ? std::string(" (setting up)")
                : " (frame " + std::to_string(frame) + ")");
}

std::array<double, 4> StudentLane::mean_phases_ms() const {
    std::array<double, 4> m{};
    for (size_t i = 0; i < m.size(); ++i) m[i] = frames_rendered_ ? phase_sums_ms_[i] / frames_rendered_ : 0;
    return m;
}

double StudentLane::frames_per_second() const {
    if (frame_times_.size() < 2 || seconds_since(frame_times_.back()) > 2) return 0;
    const double span = std::chrono::duration<double>(frame_times_.back() - frame_times_.front()).count();
    return span > 0 ? (frame_times_.size() - 1) / span : 0;
}

}  // namespace cr::app
