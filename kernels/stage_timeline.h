// cudaEvent timing of the frame's stages, and the CR_SYNC_STAGES debug mode.
#pragma once

#include <string>
#include <vector>

#include "kernels/device_buffer.h"

namespace cr {

/// Records a chain of events on the stream: each mark() ends the previous
/// stage and starts a named one; close() ends the last. Elapsed times between
/// consecutive events are the stage times (read after the stream finishes).
/// With `sync_stages`, mark() and close() also wait for the stage that just
/// ended and throw CudaError naming it if it failed, so an asynchronous fault
/// (an illegal address in a kernel) is reported with its stage.
class StageTimeline {
public:
    explicit StageTimeline(bool sync_stages = false) : sync_(sync_stages) {}
    /// Forgets the stages of the last frame (events are reused).
    void reset();
    /// Ends the running stage (if any) and starts stage `name`, which counts
    /// towards course line `course` ("Clear", "Advance", "Render" or "").
    void mark(const char* name, const char* course, cudaStream_t s);
    /// Ends the running stage.
    void close(cudaStream_t s);
    /// After close(): the next mark() starts its stage at the closing event
    /// instead of a new one (work added to a frame after the host waited for
    /// it; the wait counts in that stage).
    void reopen();
    /// Waits for the last event and returns the stage times in ms, stages of
    /// the same name (batches) added up; empty when no frame was closed.
    std::vector<StageTime> read();

private:
    void record(cudaStream_t s);
    void check_running_stage(cudaStream_t s);
    std::vector<CudaEvent> events_;
    std::vector<StageTime> names_;
    size_t used_ = 0;
    bool sync_ = false;
    bool reopened_ = false;
};

}  // namespace cr
