#include "build_job.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace cr::app {

void SourceWatcher::watch(const std::string& dir) {
    dir_ = dir;
    seen_ = fingerprint();
    pending_.clear();
    next_poll_ = Clock::now();
}

std::string SourceWatcher::fingerprint() const {
    std::vector<std::string> rows;
    std::error_code ec;
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code e2;
        if (!cr::student::is_build_input(name) || !it->is_regular_file(e2)) continue;
        const auto size = fs::file_size(it->path(), e2);
        const auto mtime = fs::last_write_time(it->path(), e2).time_since_epoch().count();
        rows.push_back(name + " " + std::to_string(size) + " " + std::to_string(mtime));
    }
    std::sort(rows.begin(), rows.end());
    std::string all;
    for (const auto& r : rows) all += r + "\n";
    return all;
}

bool SourceWatcher::changed(Clock::time_point now) {
    if (dir_.empty() || now < next_poll_) return false;
    next_poll_ = now + std::chrono::milliseconds(static_cast<int>(kPollSeconds * 1000));
    const std::string now_print = fingerprint();
    if (now_print == seen_) {
        pending_.clear();
        return false;
    }
    if (now_print != pending_) {  // still changing (or first sight of a change): wait one poll
        pending_ = now_print;
        return false;
    }
    seen_ = now_print;
    pending_.clear();
    return true;
}

BuildOutcome run_build(const cr::student::BuildOptions& options) {
    BuildOutcome o;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        o.result = cr::student::build_student(options);
        o.kind = BuildOutcome::Kind::Built;
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.1f", o.result.seconds);
        o.summary = o.result.cached ? "unchanged since an earlier build (from the cache)"
                                    : std::string("built in ") + secs + " s";
    } catch (const cr::student::BuildError& e) {
        o.kind = BuildOutcome::Kind::Failed;
        o.summary = e.what();
        o.messages = e.messages;
    } catch (const cr::student::NvccMissing& e) {
        o.kind = BuildOutcome::Kind::NoNvcc;
        o.summary = e.what();
    } catch (const std::invalid_argument& e) {
        o.kind = BuildOutcome::Kind::BadFolder;
        o.summary = e.what();
    } catch (const std::exception& e) {
        o.kind = BuildOutcome::Kind::Error;
        o.summary = std::string("the build could not run: ") + e.what();
    }
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return o;
}

}  // namespace cr::app
