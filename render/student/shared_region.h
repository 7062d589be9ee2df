// POSIX shared memory between the harness and the worker: the scene goes in
// at setup, the image comes back after each getImage().
#pragma once

#include <cstddef>
#include <string>

namespace cr::student {

/// A mapped shared-memory object (RAII). The creator unlinks the name on
/// destruction; the other side only unmaps.
class SharedRegion {
public:
    SharedRegion() = default;
    ~SharedRegion();
    SharedRegion(SharedRegion&& o) noexcept;
    SharedRegion& operator=(SharedRegion&& o) noexcept;
    SharedRegion(const SharedRegion&) = delete;
    SharedRegion& operator=(const SharedRegion&) = delete;

    /// Creates a new region of `bytes` bytes under a fresh name
    /// (/circle-renderer-PID-N; a name left behind by an earlier process of
    /// the same pid, killed before it could remove it, is skipped). Throws
    /// std::runtime_error naming the cause (e.g. /dev/shm full).
    static SharedRegion create(size_t bytes);
    /// Maps the existing region `name` of `bytes` bytes. Throws std::runtime_error.
    static SharedRegion open(const std::string& name, size_t bytes);

    void* data() const { return data_; }
    size_t size() const { return size_; }
    const std::string& name() const { return name_; }
    bool valid() const { return data_ != nullptr; }
    /// Removes the region's name from /dev/shm now (a region this process
    /// created; no-op otherwise). The mapping stays valid until the region
    /// is released, and nothing is left behind even if the process ends
    /// before that, e.g. while another thread still holds the region.
    void unlink_now();

private:
    void release();
    void* data_ = nullptr;
    size_t size_ = 0;
    std::string name_;
    bool owner_ = false;
};

}  // namespace cr::student
