// Splitting a large pass over memory (a 1024x1024 frame is 16 MB of RGBA
// floats) into contiguous bands that run on a few threads at once. Used where
// one thread's copy or comparison of a frame sits in a pace that matters: the
// workbench's student lane (copying the student's frame out of the worker's
// memory, reading the reference, comparing, converting for the texture) and
// the worker's copy of the student's image into shared memory. Plain
// std::thread, no OpenMP: the worker runs inside the student's process.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace cr {

/// How many bands a pass over `bytes` of memory is worth: 1 below 2 MiB
/// (creating a thread, about 30 us, costs more than it saves), else up to 4
/// (one thread copies about 6-10 GB/s; four come close to what the memory
/// gives a process that also draws a window).
inline int bands_for_bytes(size_t bytes) {
    constexpr size_t kBandBytes = size_t(2) << 20;
    return static_cast<int>(std::clamp<size_t>(bytes / kBandBytes, 1, 4));
}

/// Runs fn(begin, end) over at most `bands` contiguous ranges that cover
/// [0, n) in order: the first on the calling thread, each other on a thread
/// of its own (on the calling thread when no thread can be created). Returns
/// when every range has ended; the first exception any threw is rethrown
/// then. A range depends only on its bounds, so the result is the same for
/// any number of bands as long as fn writes only its own range.
template <class F>
void for_bands(size_t n, int bands, const F& fn) {
    const size_t k = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(bands, 1)), n));
    if (k == 1) {
        if (n) fn(size_t(0), n);
        return;
    }
    std::vector<std::exception_ptr> errors(k);
    std::vector<std::thread> threads;
    threads.reserve(k - 1);
    const auto run = [&](size_t b) {
        try {
            fn(n * b / k, n * (b + 1) / k);
        } catch (...) {
            errors[b] = std::current_exception();
        }
    };
    for (size_t b = 1; b < k; ++b) {
        try {
            threads.emplace_back(run, b);
        } catch (const std::system_error&) {
            run(b);  // no thread to be had: this band here and now
        }
    }
    run(0);
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

/// std::memcpy(dst, src, bytes) in bands_for_bytes(bytes) bands; the ranges
/// must not overlap.
void parallel_copy(void* dst, const void* src, size_t bytes);

}  // namespace cr
