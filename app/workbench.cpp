#include "workbench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "render/core/output_file.h"
#include "render/renderer_factory.h"
#include "render/sanitize_run.h"

namespace cr::app {

namespace {

/// Prints one "workbench: ..." line to stdout at once (tests wait for them).
void say(const std::string& line) {
    std::printf("workbench: %s\n", line.c_str());
    std::fflush(stdout);
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", s);
    return buf;
}

/// The first line of the compiler's messages that names an error.
std::string first_error_in(const std::string& messages) {
    std::istringstream in(messages);
    for (std::string line; std::getline(in, line);)
        if (line.find("error") != std::string::npos) return line;
    return "";
}

/// `text` with "FOLDER/" removed, so the student's file:line fits the panel.
std::string relative_to(const std::string& text, const std::string& folder) {
    std::string out = text;
    const std::string prefix = folder + "/";
    for (size_t at = out.find(prefix); !folder.empty() && at != std::string::npos; at = out.find(prefix, at))
        out.erase(at, prefix.size());
    return out;
}

}  // namespace

// ---- GapMeter ---------------------------------------------------------------

void GapMeter::begin(bool rebuild) {
    active_ = true;
    rebuild_ = rebuild;
    frames_left_ = -1;
}

void GapMeter::end_after(int frames_after) {
    if (active_) frames_left_ = frames_after;
}

void GapMeter::frame(Clock::time_point now) {
    if (active_ && have_last_) {
        const double gap = std::chrono::duration<double, std::milli>(now - last_).count();
        Gaps& g = rebuild_ ? rebuild_gaps_ : first_;
        double& worst = frames_left_ < 0 ? g.compile_ms : g.switch_ms;
        if (gap > worst) worst = gap;
        ++frames_;
        if (frames_left_ > 0 && --frames_left_ == 0) active_ = false;
    }
    last_ = now;
    have_last_ = true;
}

// ---- Workbench --------------------------------------------------------------

Workbench::Workbench(WorkbenchOptions options) : options_(std::move(options)) {
    lane_.set_max_rate(options_.max_student_fps);
    if (options_.use_settings) settings_ = load_settings(settings_path(), settings_error_);
}

void Workbench::load(const std::string& folder_in) {
    if (folder_in.empty()) {
        detail_ = "give the folder of your renderer (the course's render/ folder, with cudaRenderer.cu)";
        return;
    }
    const std::string folder = std::filesystem::absolute(folder_in).lexically_normal().string();
    if (folder != folder_) {
        lane_.unload();
        built_ = student::BuildResult{};
        sanitize_lines_.clear();
        had_build_ = false;
        folder_ = folder;
        set_messages(messages_);  // the last build's messages stay, shown relative to the folder now loaded
    }
    if (options_.use_settings) {
        remember_folder(settings_, folder_);
        try {
            save_settings(settings_path(), settings_);
            settings_error_.clear();
        } catch (const std::exception& e) {
            settings_error_ = std::string("the folder is not remembered: ") + e.what();
        }
    }
    watcher_.watch(folder_);
    if (job_.running()) rebuild_pending_ = true;
    else start_build();
}

void Workbench::start_build() {
    rebuild_pending_ = false;
    student::BuildOptions bo;
    bo.dir = folder_;
    bo.arch_flags = options_.arch_flags;
    bo.timeout_s = 300;
    gaps_.begin(had_build_);
    say(std::string(had_build_ ? "rebuilding " : "building ") + folder_);
    job_folder_ = folder_;
    job_.start([bo] { return run_build(bo); });
}

void Workbench::start_sanitize(const Session& s, const std::string& tool) {
    if (!has_build() || sanitize_job_.running()) return;
    const int frames = std::max(1, std::min(s.frame(), 10));
    say("sanitize: " + tool + " on " + s.scene_label() + " at " + std::to_string(s.width()) + "x" +
        std::to_string(s.height()) + ", frames 0.." + std::to_string(frames - 1));
    RendererContext ctx;
    ctx.student_timeout_s = options_.call_timeout_s;
    ctx.student_memory_bytes = options_.memory_bytes;
    ctx.student_gpu = options_.gpu;  // its fault would stall the window's GPU as any other
    sanitize_job_.start([b = built_, scene = s.scene(), w = s.width(), h = s.height(), frames, tool, ctx] {
        std::vector<std::string> lines;
        try {
            const SanitizeOutcome o = sanitize_student(b, scene, w, h, frames, tool, ctx);
            std::istringstream text(student::describe_sanitizer_report(o.report, o.tool));
            for (std::string line; std::getline(text, line);) lines.push_back(line);
            if (!o.fault.empty()) lines.push_back("your renderer stopped: " + o.fault);
            lines.push_back("the tool's whole report: " + o.report_path);
        } catch (const std::exception& e) {
            lines.push_back("compute-sanitizer could not run: " + std::string(e.what()));
        }
        return lines;
    });
}

void Workbench::tick() {
    BuildOutcome o;
    if (job_.poll(o)) take_outcome(o);
    if (sanitize_job_.poll(sanitize_lines_))
        for (const auto& line : sanitize_lines_) say("sanitize: " + line);
    if (!folder_.empty() && watcher_.changed(SourceWatcher::Clock::now())) {
        say("a source file changed: rebuilding");
        if (job_.running()) rebuild_pending_ = true;
        else start_build();
    }
    if (rebuild_pending_ && !job_.running()) start_build();
}

void Workbench::take_outcome(const BuildOutcome& o) {
    ++builds_finished_;
    if (job_folder_ != folder_) return;  // another folder was loaded meanwhile: its build comes next
    had_build_ = true;
    gaps_.end_after(2);
    if (o.kind == BuildOutcome::Kind::Built) {
        use_library(o);
        return;
    }
    last_failed_ = true;
    fail_summary_ = o.summary;
    set_messages(o.messages);
    detail_ = o.summary + (lane_.state() == StudentLane::State::Empty ? "" : "; your previous build keeps running");
    say("build failed: " + o.summary);
    std::istringstream lines(messages_);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) say("compiler: " + line);
}

void Workbench::use_library(const BuildOutcome& o) {
    built_ = o.result;
    last_failed_ = false;
    fail_summary_.clear();
    set_messages("");
    say(o.summary + ": " + o.result.library);
    // Test hooks for machines without a GPU: CR_GUI_STUDENT_WITHOUT_GPU=1 runs
    // the library anyway (its first CUDA call fails: the fault path);
    // CR_GUI_STUDENT_STANDIN=NAME runs the project's renderer NAME in its place
    // (the compare, inspector and timing paths).
    const char* force = std::getenv("CR_GUI_STUDENT_WITHOUT_GPU");
    const char* standin_env = std::getenv("CR_GUI_STUDENT_STANDIN");
    const std::string standin = standin_env ? standin_env : "";
    cannot_run_ = renderer_unavailable_reason("student");
    if ((force && std::string(force) == "1") || !standin.empty()) cannot_run_.clear();
    if (!cannot_run_.empty()) {
        lane_.unload();
        detail_ = o.summary + "; a CUDA GPU is needed to run it. The reference keeps running.";
        say("cannot run the student's renderer here: " + cannot_run_ + "; the reference keeps running");
        return;
    }
    student::StudentOptions so;
    so.library = o.result.library;
    so.call_timeout_s = options_.call_timeout_s;
    so.device_memory_bytes = student_memory_budget(options_.memory_bytes);
    so.gpu = options_.gpu;
    lane_.load(so, standin);
    detail_ = o.summary + (standin.empty() ? "" : "; TEST: renderer '" + standin + "' stands in for it");
    if (!standin.empty()) say("test: renderer '" + standin + "' stands in for the student's library");
    if (lane_.state() == StudentLane::State::Ready) say("ready: the student's renderer runs from the next frame");
}

void Workbench::set_messages(std::string messages) {
    messages_ = std::move(messages);
    messages_shown_ = relative_to(messages_, folder_);
    first_error_ = first_error_in(messages_shown_);
}

bool Workbench::after_frame(Session& s, float pause_tolerance) {
    const bool was_faulted = lane_.state() == StudentLane::State::Faulted;
    const int before = lane_.frames_rendered();
    const bool rendered = lane_.sync(s);
    if (!was_faulted && lane_.state() == StudentLane::State::Faulted)
        say(lane_.fault().no_gpu ? "cannot run the student's renderer here: " + lane_.fault().what +
                                       "; the reference keeps running"
                                 : "crashed: " + lane_.fault().what);
    const std::string waiting = lane_.waiting_line();
    if (!lane_.busy()) wait_announced_ = false;
    if (!waiting.empty() && !wait_announced_) {
        say("waiting: " + waiting + "; the window keeps drawing");
        wait_announced_ = true;
    }
    if (!rendered) return false;
    const LaneCompare& c = lane_.compare();
    if (before == 0 && c.valid)
        say("student frame " + std::to_string(c.frame) + " vs " + c.reference + ": " +
            std::to_string(c.stats.mismatches_strict) + " pixels beyond 1e-4, " +
            std::to_string(c.stats.mismatches_course) + " beyond 0.1");
    if (!c.valid) return false;
    return pause_tolerance <= kStrictTolerance ? !c.stats.pass : !c.pass_course;
}

Workbench::Status Workbench::status() const {
    if (folder_.empty()) return Status::None;
    if (job_.running()) return Status::Building;
    if (lane_.state() == StudentLane::State::Faulted) return lane_.fault().no_gpu ? Status::CannotRun : Status::Crashed;
    if (last_failed_) return Status::BuildFailed;
    if (!cannot_run_.empty()) return Status::CannotRun;
    if (lane_.state() == StudentLane::State::Ready || lane_.state() == StudentLane::State::Running) return Status::Ready;
    return Status::NoBuild;
}

std::string Workbench::status_line() const {
    const bool previous = lane_.state() == StudentLane::State::Ready || lane_.state() == StudentLane::State::Running;
    switch (status()) {
        case Status::None: return "no folder loaded";
        case Status::Building:
            return "building (" + seconds_text(job_.elapsed_seconds()) + ")" +
                   (previous ? "; your previous build keeps running" : "");
        case Status::Crashed:
            return "crashed in " + lane_.fault().call +
                   (lane_.fault().frame >= 0 ? ", frame " + std::to_string(lane_.fault().frame) : std::string());
        case Status::BuildFailed: return "build failed";
        case Status::CannotRun:
            return "built, but it cannot run here: " + (cannot_run_.empty() ? lane_.fault().what : cannot_run_);
        case Status::Ready: {
            const std::string waiting = lane_.waiting_line();
            if (!waiting.empty()) return "running: " + waiting;
            return lane_.state() == StudentLane::State::Running ? "ready (running)" : "ready";
        }
        case Status::NoBuild: break;
    }
    return "not built";
}

void Workbench::print_summary() const {
    const auto line = [](const char* what, const GapMeter::Gaps& g) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "longest frame gap during the %s: %.0f ms (while compiling %.0f ms, switching to "
                      "the new build %.0f ms)", what, g.longest(), std::max(g.compile_ms, 0.0), std::max(g.switch_ms, 0.0));
        say(buf);
    };
    if (gaps_.first_build().longest() >= 0) line("first build", gaps_.first_build());
    if (gaps_.rebuild().longest() >= 0) line("rebuild", gaps_.rebuild());
    say("status: " + status_line() + (detail_.empty() ? "" : " (" + detail_ + ")"));
    if (lane_.frames_rendered() > 1) {
        char rate[96];
        std::snprintf(rate, sizeof rate, "student: %.1f frames/s (at its own pace, %d frames)", lane_.frames_per_second(),
                      lane_.frames_rendered());
        say(rate);
        const std::array<double, 4> p = lane_.mean_phases_ms();
        char phases[200];
        std::snprintf(phases, sizeof phases, "student lane: mean ms per frame: set up or catch up %.2f (set up %d times), "
                      "clear + advance + render %.2f, image %.2f, compare %.2f", p[0], lane_.setups(), p[1], p[2], p[3]);
        say(phases);
    }
    const LaneCompare& c = lane_.compare();
    if (c.valid)
        say("last student frame " + std::to_string(c.frame) + " vs " + c.reference + ": " +
            std::to_string(c.stats.mismatches_strict) + " pixels beyond 1e-4 (strict), " +
            std::to_string(c.stats.mismatches_course) + " beyond 0.1 (course): " +
            (c.stats.pass ? "PASS" : "FAIL"));
}

}  // namespace cr::app
