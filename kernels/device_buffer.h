// RAII owners for device memory, streams and events.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "kernels/cuda_check.h"

namespace cr {

/// Counts device bytes held by one renderer and the peak (no global state:
/// each renderer owns one and passes it to its buffers).
struct DeviceMemoryTally {
    size_t current = 0;
    size_t peak = 0;
    size_t limit = 0;  ///< refuse allocations past this many bytes (0: no limit)
    void add(size_t b) {
        current += b;
        if (current > peak) peak = current;
    }
    void remove(size_t b) { current -= b; }
};

/// A named device allocation of `count` elements of T. Allocation failure
/// throws DeviceOutOfMemory naming the buffer and the bytes asked for.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        swap(o);
        return *this;
    }
    ~DeviceBuffer() { release(); }

    /// Makes the buffer hold at least `count` elements (contents are lost when
    /// it grows). `grow_slack` over-allocates by that factor when growing.
    void reserve(const char* name, size_t count, DeviceMemoryTally* tally, double grow_slack = 1.0) {
        if (count <= count_ && ptr_) return;
        release();
        size_t want = static_cast<size_t>(static_cast<double>(count) * grow_slack);
        if (want < count) want = count;
        if (want == 0) want = 1;
        const size_t bytes = want * sizeof(T);
        if (tally && tally->limit && tally->current + bytes > tally->limit) throw DeviceOutOfMemory(name, bytes);
        void* p = nullptr;
        const cudaError_t e = cudaMalloc(&p, bytes);
        if (e != cudaSuccess) {
            cudaGetLastError();  // allocation errors are not sticky; clear it
            if (e == cudaErrorMemoryAllocation) throw DeviceOutOfMemory(name, bytes);
            throw_cuda_error(e, "cudaMalloc", __FILE__, __LINE__);
        }
        ptr_ = static_cast<T*>(p);
        count_ = want;
        tally_ = tally;
        if (tally_) tally_->add(bytes);
    }
    void release() {
        if (ptr_) {
            cudaFree(ptr_);
            if (tally_) tally_->remove(count_ * sizeof(T));
        }
        ptr_ = nullptr;
        count_ = 0;
    }
    T* get() const { return ptr_; }
    size_t size() const { return count_; }

private:
    void swap(DeviceBuffer& o) {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        std::swap(tally_, o.tally_);
    }
    T* ptr_ = nullptr;
    size_t count_ = 0;
    DeviceMemoryTally* tally_ = nullptr;
};

/// A CUDA stream (non-blocking with respect to the legacy default stream).
class CudaStream {
public:
    CudaStream() { CR_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~CudaStream() { cudaStreamDestroy(s_); }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

/// A CUDA event, with timing enabled unless `flags` say otherwise
/// (cudaEventDisableTiming for events that only order two streams).
class CudaEvent {
public:
    explicit CudaEvent(unsigned int flags = cudaEventDefault) { CR_CUDA(cudaEventCreateWithFlags(&e_, flags)); }
    ~CudaEvent() {
        if (e_) cudaEventDestroy(e_);
    }
    CudaEvent(CudaEvent&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

/// Page-locked host memory for small asynchronous read-backs.
template <class T>
class PinnedHost {
public:
    explicit PinnedHost(size_t n = 1) { CR_CUDA(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T))); }
    ~PinnedHost() { cudaFreeHost(p_); }
    PinnedHost(const PinnedHost&) = delete;
    PinnedHost& operator=(const PinnedHost&) = delete;
    T* get() const { return p_; }

private:
    T* p_ = nullptr;
};

/// Page-locks host memory that something else owns (cudaHostRegister), so
/// that copies to and from it run at the bus's speed: on the H200 a pageable
/// 16 MB device-to-host copy is several times slower. Registration is a
/// speed-up only: where the driver refuses it, the memory stays pageable.
/// Release (or destroy) it before the memory is freed.
class HostRegistration {
public:
    HostRegistration() = default;
    ~HostRegistration() { release(); }
    HostRegistration(const HostRegistration&) = delete;
    HostRegistration& operator=(const HostRegistration&) = delete;
    /// Registers `bytes` at `p` (releasing an earlier registration first).
    void pin(void* p, size_t bytes) {
        release();
        if (!p || bytes == 0) return;
        if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) p_ = p;
        else (void)cudaGetLastError();  // refused: the copies stay pageable, nothing else changes
    }
    void release() {
        if (p_ && cudaHostUnregister(p_) != cudaSuccess) (void)cudaGetLastError();  // not left for a later check
        p_ = nullptr;
    }

private:
    void* p_ = nullptr;
};

}  // namespace cr
