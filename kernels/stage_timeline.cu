#include "kernels/stage_timeline.h"

namespace cr {

void StageTimeline::reset() {
    names_.clear();
    used_ = 0;
    running_ = -1;
    reopened_ = false;
}

void StageTimeline::check_running_stage(cudaStream_t s) {
    if (!sync_ || running_ < 0) return;
    const cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        throw CudaError("stage '" + names_[running_].stage.name + "' failed (CR_SYNC_STAGES): " + cudaGetErrorName(e) +
                        ": " + cudaGetErrorString(e));
}

void StageTimeline::mark(const char* name, const char* course, cudaStream_t s) {
    check_running_stage(s);
    if (!reopened_) record(s);  // ends the running stage (if any) and starts this one
    reopened_ = false;
    names_.push_back({{name, course, 0.0}, static_cast<int>(used_) - 1});
    running_ = static_cast<int>(names_.size()) - 1;
}

void StageTimeline::mark_empty(const char* name, const char* course, cudaStream_t s) {
    check_running_stage(s);
    names_.push_back({{name, course, 0.0}, -1});
}

// Every recorded event but close()'s starts a running stage, so no running
// stage after an event means the last event was a close.
void StageTimeline::reopen() { reopened_ = running_ < 0 && used_ > 0; }

void StageTimeline::close(cudaStream_t s) {
    if (running_ < 0) return;
    check_running_stage(s);
    record(s);
    running_ = -1;
}

std::vector<StageTime> StageTimeline::read() {
    std::vector<StageTime> out;
    if (names_.empty() || running_ >= 0) return out;  // nothing listed, or the last stage was not closed
    if (used_ > 0) CR_CUDA(cudaEventSynchronize(events_[used_ - 1].get()));
    for (const Listed& l : names_) {
        float ms = 0;
        if (l.start >= 0) CR_CUDA(cudaEventElapsedTime(&ms, events_[l.start].get(), events_[l.start + 1].get()));
        bool merged = false;  // batches repeat stage names: add them up
        for (auto& o : out)
            if (o.name == l.stage.name) {
                o.ms += ms;
                merged = true;
            }
        if (!merged) out.push_back({l.stage.name, l.stage.course, ms});
    }
    return out;
}

void StageTimeline::record(cudaStream_t s) {
    if (used_ == events_.size()) events_.emplace_back();
    CR_CUDA(cudaEventRecord(events_[used_].get(), s));
    ++used_;
}

}  // namespace cr
