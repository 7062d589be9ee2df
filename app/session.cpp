#include "session.h"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "render/image_io.h"
#include "render/renderer_factory.h"
#include "render/scene_source.h"

namespace cr::app {

void Session::notify(const std::string& text, bool error) {
    message_ = text;
    message_is_error_ = error;
}

void Session::set_scene(const SceneChoice& choice, std::optional<SceneLoad> loaded) {
    try {
        SceneLoad l = loaded ? std::move(*loaded)
                             : load_scene(SceneRequest{choice.from_file ? "" : choice.name,
                                                       choice.from_file ? choice.path : "",
                                                       choice.from_file ? "" : choice.particles, choice.seed});
        scene_ = std::move(l.scene);
        scene_note_ = l.note;
        choice_ = choice;
        ++scene_version_;
    } catch (const std::exception& e) {
        notify(std::string("scene not loaded: ") + e.what(), true);
        return;
    }
    check_.valid = false;
    restart();
}

void Session::set_renderer(const std::string& name) {
    const int keep = frame();
    renderer_.reset();  // free the old renderer's memory before the new one allocates
    renderer_name_ = name;
    check_.valid = false;
    try {
        renderer_ = make_renderer(name);
        setup(keep);
    } catch (const std::exception& e) {
        recover("renderer '" + name + "'", e);
    }
}

void Session::set_size(int width, int height) {
    if (width == width_ && height == height_ && renderer_) return;
    width_ = width;
    height_ = height;
    check_.valid = false;
    if (!renderer_) {
        if (!renderer_name_.empty()) set_renderer(renderer_name_);
        return;
    }
    try {
        setup(frame());
    } catch (const std::exception& e) {
        recover("renderer '" + renderer_name_ + "' at " + std::to_string(width) + "x" +
                    std::to_string(height),
                e);
    }
}

void Session::restart() {
    if (!renderer_) {  // every renderer failed before: try the chosen one again
        if (!renderer_name_.empty()) set_renderer(renderer_name_);
        return;
    }
    try {
        setup(0);
    } catch (const std::exception& e) {
        renderer_failed(e);
    }
}

void Session::setup(int frame) {
    ++setup_version_;
    log_.reset();
    needs_frame_ = false;
    timing_label_.clear();
    if (!renderer_ || width_ <= 0 || height_ <= 0) return;
    // Catch up to the frame shown before (the image is drawn by the next step).
    setup_at_frame(*renderer_, scene_, width_, height_, frame);
    timing_label_ = timing_label_of(*renderer_);
    needs_frame_ = true;
}

void Session::recover(const std::string& what, const std::exception& e) {
    std::string text = what + " failed: " + e.what();
    const int keep = renderer_ ? renderer_->frame() : 0;
    renderer_.reset();
    timing_label_.clear();
    if (renderer_name_ == "cpu") {
        notify(text, true);
        return;
    }
    renderer_name_ = "cpu";
    text += "; switched to the cpu renderer";
    try {
        renderer_ = make_renderer("cpu");
        setup(keep);
    } catch (const std::exception& e2) {
        renderer_.reset();
        text += std::string(", which failed too: ") + e2.what();
    }
    notify(text, true);
}

bool Session::step() {
    if (!renderer_ || width_ <= 0 || height_ <= 0) return false;
    try {
        record(render_next_frame(*renderer_));  // waits for a GPU renderer's frame
    } catch (const std::exception& e) {
        renderer_failed(e);
        return false;
    }
    needs_frame_ = false;
    ++image_version_;
    return true;
}

void record_stages(std::vector<StageSeries>& series, const std::vector<StageTime>& times) {
    for (const auto& t : times) {
        StageSeries* s = nullptr;
        for (auto& x : series)
            if (x.name == t.name) s = &x;
        if (!s) {
            series.push_back(StageSeries{t.name, t.course, 0, std::vector<float>(StageSeries::kHistory, 0.f), 0, 0});
            s = &series.back();
        }
        s->last_ms = t.ms;
        s->history[static_cast<size_t>(s->next)] = static_cast<float>(t.ms);
        s->next = (s->next + 1) % StageSeries::kHistory;
        if (s->filled < StageSeries::kHistory) ++s->filled;
    }
}

void StageLog::add(const std::vector<StageTime>& times) {
    accumulate(sums, times);
    record_stages(stages, times);
}

void StageLog::reset() {
    stages.clear();
    sums = FrameTimes{};
}

void TimingBoard::add(const std::string& renderer, const std::string& method, const std::string& scene, int width,
                      int height, const std::vector<StageTime>& times) {
    Entry* e = nullptr;
    for (auto& x : entries_)
        if (x.renderer == renderer && x.scene == scene && x.width == width && x.height == height) e = &x;
    if (!e) {
        if (entries_.size() >= kMaxEntries) entries_.erase(entries_.begin());
        entries_.push_back(Entry{renderer, method, scene, width, height, FrameTimes{}});
        e = &entries_.back();
    }
    accumulate(e->sums, times);
}

std::string timing_label_of(const Renderer& r) {
    if (r.course_timing()) return "course method: host clock, cudaDeviceSynchronize after each call";
    if (r.gpu_image().pixels) return "cudaEvents";
    return "host clock";
}

std::string Session::scene_label() const {
    return choice_.from_file ? choice_.path : choice_.name + " seed " + std::to_string(choice_.seed);
}

void Session::record(const std::vector<StageTime>& times) {
    log_.add(times);
    board_.add(renderer_name_, timing_label_, scene_label(), width_, height_, times);
}

void Session::run_check() {
    check_.valid = false;  // a check that fails to run must not leave the last result standing
    if (!renderer_) return;
    const Image* test = nullptr;
    try {
        test = &renderer_->image();
    } catch (const std::exception& e) {
        renderer_failed(e);
        return;
    }
    try {
        const int frames = renderer_->frame();
        auto ref = make_live_reference(renderer_name_);
        render_last_frame(*ref, scene_, width_, height_, frames);
        CheckResult c;
        c.valid = true;
        c.frame = frames;
        c.renderer = renderer_name_;
        c.incorrect_by_design = renderer_->is_incorrect_by_design();
        c.stats = compare_images(*test, ref->image(), kStrictTolerance);
        c.summary = describe(c.stats);
        c.heatmap = diff_heatmap(*test, ref->image(), kStrictTolerance);
        c.version = check_.version + 1;
        check_ = std::move(c);
    } catch (const std::exception& e) {
        notify(std::string("check vs cpuref failed: ") + e.what(), true);
    }
}

TileLoads Session::tile_loads() {
    if (!renderer_) return {};
    try {
        return renderer_->tile_loads();
    } catch (const std::exception& e) {
        renderer_failed(e);
        return {};
    }
}

std::string Session::save_png() {
    if (!renderer_) return "";
    for (int k = 0; k < 10000; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "circle_%04d.png", k);
        if (std::filesystem::exists(name)) continue;
        try {
            write_image(renderer_->image(), name, ImageFormat::Png);
            notify(std::string("saved ") + name + " (frame " + std::to_string(frame()) + ")", false);
            return name;
        } catch (const FileError& e) {
            notify(e.what(), true);
            return "";
        } catch (const std::exception& e) {
            renderer_failed(e);
            return "";
        }
    }
    notify("not saved: circle_0000.png .. circle_9999.png all exist", true);
    return "";
}

}  // namespace cr::app
