// The correctness part of `render grade` (grade_checks.h).
#include "render/grade_checks.h"

#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "render/compare.h"
#include "render/frame_loop.h"
#include "render/pixel_story.h"
#include "render/renderer_factory.h"
#include "render/scene_source.h"
#include "render/student/student_renderer.h"
#include "scenes/scene.h"

namespace fs = std::filesystem;

namespace cr {

GradeScenes::GradeScenes(const student::CourseFolder& folder, const fs::path& scratch) {
    const fs::path link = scratch / "snow.par";
    std::string par = folder.snow_par, where = "your folder's snow.par";
    if (par.empty() && access(kCourseParticleFile, R_OK) == 0) {
        par = fs::absolute(kCourseParticleFile).lexically_normal().string();
        where = par + " (your folder has none)";
    }
    if (!par.empty()) {
        snowsingle_ = load_scene(SceneRequest{"snowsingle", "", par, 0}).scene;
        fs::create_symlink(par, link);
        note_ = "snowsingle: your renderer and the reference both read " + where + " (" +
                std::to_string(snowsingle_.count()) + " flakes)";
        return;
    }
    snowsingle_ = make_scene("snowsingle", 0);
    save_particle_file(snowsingle_, link.string());
    note_ = "snowsingle: neither your folder nor the working folder has a snow.par, so your renderer and the reference "
            "both drew the project's stand-in (" + std::to_string(snowsingle_.count()) +
            " flakes, handed to the reference as its snow.par); the course's snow.par has about 100,000";
}

Scene GradeScenes::make(const std::string& name, uint32_t seed) const {
    return name == "snowsingle" ? snowsingle_ : make_scene(name, seed);
}

std::vector<CheckJob> extra_check_jobs() {
    std::vector<CheckJob> jobs;
    for (const char* s : {"rgby", "littlebig", "bouncingballs", "fireworks", "hypnosis", "snow"}) jobs.push_back({s, 0, 1024, 1024});
    for (const auto& [w, h] : {std::pair{1000, 600}, std::pair{257, 129}})
        for (const char* s : {"rgb", "rand10k", "pattern", "snowsingle"}) jobs.push_back({s, 0, w, h});
    return jobs;
}

namespace {

/// Each job's scene, then its live reference, made on a background thread
/// at most two jobs ahead of the reader (scenes and images are large).
class ReferencesAhead {
public:
    ReferencesAhead(const std::vector<CheckJob>& jobs, const GradeScenes& scenes)
        : jobs_(jobs), scenes_(scenes), slots_(jobs.size()), thread_([this] { work(); }) {}
    ~ReferencesAhead() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    ReferencesAhead(const ReferencesAhead&) = delete;
    ReferencesAhead& operator=(const ReferencesAhead&) = delete;

    /// Job i's scene (waits for it; rethrows what making it threw).
    const Scene& scene(size_t i) { return await(i, &Slot::scene); }
    /// Job i's reference image (waits for it; rethrows what making it threw);
    /// valid, with scene(i), until release(i).
    const Image& reference(size_t i) { return await(i, &Slot::reference); }
    /// Frees job i's scene and image: the thread may work ahead again.
    void release(size_t i) {
        {
            std::lock_guard<std::mutex> lock(m_);
            slots_[i] = Slot{};
            done_ = i + 1;
        }
        cv_.notify_all();
    }

private:
    struct Slot {
        std::optional<Scene> scene;
        std::optional<Image> reference;
        std::exception_ptr error;
    };

    /// Waits until job i's `part` is made (or failed: rethrows), then returns it.
    template <class T>
    const T& await(size_t i, std::optional<T> Slot::*part) {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return (slots_[i].*part).has_value() || slots_[i].error; });
        if (slots_[i].error) std::rethrow_exception(slots_[i].error);
        return *(slots_[i].*part);
    }

    void work() {
        for (size_t i = 0; i < jobs_.size(); ++i) {
            {
                std::unique_lock<std::mutex> lock(m_);
                cv_.wait(lock, [&] { return stop_ || i < done_ + 2; });
                if (stop_) return;
            }
            try {
                Scene s = scenes_.make(jobs_[i].scene, jobs_[i].seed);
                publish([&] { slots_[i].scene = std::move(s); });
                const std::unique_ptr<Renderer> ref = make_live_reference();
                Image img = render_last_frame(*ref, *slots_[i].scene, jobs_[i].width, jobs_[i].height, 1);
                publish([&] { slots_[i].reference = std::move(img); });
            } catch (...) {
                publish([&] { slots_[i].error = std::current_exception(); });
            }
        }
    }

    template <class F>
    void publish(F&& f) {
        {
            std::lock_guard<std::mutex> lock(m_);
            f();
        }
        cv_.notify_all();
    }

    const std::vector<CheckJob>& jobs_;
    const GradeScenes& scenes_;
    std::vector<Slot> slots_;
    std::mutex m_;
    std::condition_variable cv_;
    size_t done_ = 0;
    bool stop_ = false;
    std::thread thread_;  ///< last: starts once the members above exist
};

/// The student's frame 0 of `s` at w x h, drawn twice more for the race
/// check, against `reference` under the course's rule.
GradeCheck check_one(Renderer& student, const Scene& s, int w, int h, ReferencesAhead& refs, size_t i) {
    GradeCheck c;
    Image img;
    RepeatCheck rc;
    try {
        img = render_frames(student, s, w, h, 1);
        rc = rerender_compare(student, img, 3);
    } catch (const student::StudentFault& e) {
        c.why = e.what();
        c.hung = e.hung;
        return c;
    }
    const Image& ref = refs.reference(i);
    const CompareStats st = compare_images(img, ref, kCourseTolerance);
    c.pass = st.pass;
    if (!st.pass)
        c.why = st.same_size ? std::to_string(st.mismatches_course) + " pixels differ by more than 0.1"
                             : "the image has another size";
    if (!st.pass && st.same_size) {  // which pixels, and why: for the report
        c.story = describe_mismatches(img, ref, kCourseTolerance, st.mismatches_course, scene_at_frame(s, 1));
        c.diff = diff_heatmap(img, ref, kCourseTolerance);
    }
    if (rc.differing_runs)
        c.warning = "the frame drawn again changed (" + std::to_string(rc.differing_runs) + " of " +
                    std::to_string(rc.runs - 1) + " times, up to " + std::to_string(rc.most_pixels_differing) +
                    " pixels): a race in ordering or atomicity; the course checks one run, which such a renderer "
                    "passes or fails by luck";
    return c;
}

}  // namespace

std::vector<GradeCheck> run_grade_checks(Renderer& student, const std::vector<CheckJob>& jobs, const GradeScenes& scenes) {
    ReferencesAhead refs(jobs, scenes);
    std::vector<GradeCheck> out;
    std::string hung;  // the first check in which the renderer hung: it is not run again
    for (size_t i = 0; i < jobs.size(); ++i) {
        const CheckJob& j = jobs[i];
        if (hung.empty()) {
            std::fprintf(stderr, "  check %s %dx%d (seed %u)\n", j.scene.c_str(), j.width, j.height, j.seed);
            out.push_back(check_one(student, refs.scene(i), j.width, j.height, refs, i));
            if (out.back().hung) hung = j.scene + " " + std::to_string(j.width) + "x" + std::to_string(j.height);
        } else {
            GradeCheck skipped;
            skipped.why = "not run: your renderer hung in the check of " + hung;
            skipped.hung = true;
            out.push_back(skipped);
        }
        refs.reference(i);  // waits (and rethrows) if the check did not
        refs.release(i);
    }
    return out;
}

}  // namespace cr
