// One piece of work run in a background thread, with its result fetched by
// polling from the GUI thread (which never waits for it while drawing).
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <thread>
#include <utility>

namespace cr::app {

/// Runs a function returning T in its own thread. At most one at a time;
/// the destructor waits for a running one, so the work must be bounded and
/// must own (copy) all it reads.
template <typename T>
class BackgroundTask {
public:
    BackgroundTask() = default;
    ~BackgroundTask() {
        if (thread_.joinable()) thread_.join();
    }
    BackgroundTask(const BackgroundTask&) = delete;
    BackgroundTask& operator=(const BackgroundTask&) = delete;

    /// Starts `work`; call only when !running().
    void start(std::function<T()> work) {
        std::packaged_task<T()> task(std::move(work));
        result_ = task.get_future();
        started_ = std::chrono::steady_clock::now();
        thread_ = std::thread(std::move(task));
    }
    /// True from start() until the result was taken by poll().
    bool running() const { return thread_.joinable(); }
    /// Seconds since start() (0 when not running).
    double elapsed_seconds() const {
        if (!running()) return 0;
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }
    /// When the work has finished: moves its result into `out`, joins the
    /// thread and returns true. Otherwise returns false at once.
    /// An exception the work threw is rethrown here.
    bool poll(T& out) {
        if (!thread_.joinable() || result_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
            return false;
        thread_.join();
        out = result_.get();
        return true;
    }

private:
    std::thread thread_;
    std::future<T> result_;
    std::chrono::steady_clock::time_point started_{};
};

}  // namespace cr::app
