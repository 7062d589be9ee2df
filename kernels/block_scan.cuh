// Block-level exclusive scan (prefix sum) of one int per thread, the
// project's own, for stream compaction inside a thread block.
//
// Algorithm, for a block of T threads (T a power of two, 32..1024):
//   1. Each warp scans its 32 values with __shfl_up_sync in log2(32) = 5
//      steps (Hillis-Steele: step d adds the value d lanes down).
//   2. Lane 31 of every warp writes the warp's total to shared memory.
//   3. __syncthreads(); warp 0 scans the T/32 warp totals the same way.
//   4. __syncthreads(); each thread adds the scanned total of the warps
//      before it and subtracts its own value (inclusive -> exclusive).
// Every thread of the block must call it (it contains two barriers), also
// threads with no work: they pass 0. T is int by default (unsigned int for
// sums that may wrap modulo 2^32). `warp_totals` is shared memory of at
// least THREADS/32 values of type T. Returns the exclusive prefix; `block_total` gets the sum.
// A trailing barrier is left to the caller: the scratch is reused only after
// the caller's next __syncthreads().
#pragma once

namespace cr {

template <class T = int>
__device__ __forceinline__ T warp_inclusive_scan(T v) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    return v;
}

template <int THREADS, class T = int>
__device__ __forceinline__ T block_exclusive_scan(T value, T* warp_totals, T& block_total) {
    static_assert(THREADS >= 32 && THREADS <= 1024 && (THREADS & (THREADS - 1)) == 0,
                  "block size must be a power of two in 32..1024");
    constexpr int kWarps = THREADS / 32;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const T inclusive = warp_inclusive_scan(value);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const T t = lane < kWarps ? warp_totals[lane] : T(0);
        const T s = warp_inclusive_scan(t);
        if (lane < kWarps) warp_totals[lane] = s;  // inclusive scan of totals
    }
    __syncthreads();
    block_total = warp_totals[kWarps - 1];
    const T before = warp == 0 ? T(0) : warp_totals[warp - 1];
    return before + inclusive - value;
}

/// The same exclusive scan for 0/1 flags, the case of stream compaction:
/// a warp's 32 flags fit one 32-bit word (__ballot_sync), so the warp scan is
/// a population count of the bits below the lane (__popc(mask & below)), one
/// instruction instead of five shuffle steps; lane 0 writes the warp's count
/// to `warp_counts`, and after one __syncthreads() every thread adds up the
/// counts of the warps before it (THREADS / 32 shared-memory reads, the same
/// address for every lane: broadcasts). One barrier instead of two.
/// Every thread of the block must call it. `warp_counts` (THREADS / 32 ints)
/// may be written again only after every thread has returned from this call
/// (a later barrier, or a second buffer for the next call).
template <int THREADS>
__device__ __forceinline__ int block_exclusive_scan_flags(bool flag, int* warp_counts, int& block_total) {
    static_assert(THREADS >= 32 && THREADS <= 1024 && THREADS % 32 == 0, "block size must be a multiple of 32");
    constexpr int kWarps = THREADS / 32;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const unsigned int mask = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_counts[warp] = __popc(mask);
    __syncthreads();
    int before = 0, total = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        const int n = warp_counts[w];
        before += w < warp ? n : 0;
        total += n;
    }
    block_total = total;
    return before + __popc(mask & ((1u << lane) - 1u));
}

}  // namespace cr
