#include "kernels/stage_timeline.h"

namespace cr {

void StageTimeline::reset() {
    names_.clear();
    used_ = 0;
    reopened_ = false;
}

void StageTimeline::check_running_stage(cudaStream_t s) {
    if (!sync_ || names_.empty()) return;
    const cudaError_t e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        throw CudaError("stage '" + names_.back().name + "' failed (CR_SYNC_STAGES): " + cudaGetErrorName(e) +
                        ": " + cudaGetErrorString(e));
}

void StageTimeline::mark(const char* name, const char* course, cudaStream_t s) {
    check_running_stage(s);
    if (!reopened_) record(s);
    reopened_ = false;
    names_.push_back({name, course, 0.0});
}

void StageTimeline::reopen() { reopened_ = !names_.empty() && used_ == names_.size() + 1; }

void StageTimeline::close(cudaStream_t s) {
    if (names_.empty() || used_ != names_.size()) return;
    check_running_stage(s);
    record(s);
}

std::vector<StageTime> StageTimeline::read() {
    std::vector<StageTime> out;
    if (names_.empty() || used_ < names_.size() + 1) return out;
    CR_CUDA(cudaEventSynchronize(events_[used_ - 1].get()));
    for (size_t i = 0; i < names_.size(); ++i) {
        float ms = 0;
        CR_CUDA(cudaEventElapsedTime(&ms, events_[i].get(), events_[i + 1].get()));
        bool merged = false;  // batches repeat stage names: add them up
        for (auto& o : out)
            if (o.name == names_[i].name) {
                o.ms += ms;
                merged = true;
            }
        if (!merged) out.push_back({names_[i].name, names_[i].course, ms});
    }
    return out;
}

void StageTimeline::record(cudaStream_t s) {
    if (used_ == events_.size()) events_.emplace_back();
    CR_CUDA(cudaEventRecord(events_[used_].get(), s));
    ++used_;
}

}  // namespace cr
