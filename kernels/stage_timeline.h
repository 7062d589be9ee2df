// cudaEvent timing of the frame's stages, and the CR_SYNC_STAGES debug mode.
#pragma once

#include <string>
#include <vector>

#include "kernels/device_buffer.h"

namespace cr {

/// Records a chain of events on the stream: each mark() ends the previous
/// stage and starts a named one; close() ends the last. Elapsed times between
/// consecutive events are the stage times (read after the stream finishes).
/// A stage that queues no GPU work (mark_empty) is listed with 0 ms and
/// records no event: two event records around nothing would hold an idle GPU
/// to the host's pace for the time of the calls between them (about 1.5 us
/// each on the H100/H200 hosts), which is not the frame's GPU time.
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
    /// Lists stage `name` with 0 ms: the caller queues no GPU work for it
    /// (the deferred clear, a static scene's advance). No event is recorded;
    /// a running stage goes on to the next recorded event, so the GPU work
    /// it queued is still measured whole.
    void mark_empty(const char* name, const char* course, cudaStream_t s);
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
    /// A listed stage: its start event's index, or -1 for an empty stage.
    /// A stage ends at the next event recorded after its start.
    struct Listed {
        StageTime stage;
        int start = -1;
    };
    void record(cudaStream_t s);
    void check_running_stage(cudaStream_t s);
    std::vector<CudaEvent> events_;
    std::vector<Listed> names_;
    size_t used_ = 0;          ///< events recorded this frame
    int running_ = -1;         ///< index in names_ of the stage whose end is not recorded yet
    bool sync_ = false;
    bool reopened_ = false;
};

}  // namespace cr
