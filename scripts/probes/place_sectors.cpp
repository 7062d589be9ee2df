// A CPU count of the 32-byte sectors bin.place's stores touch (issue 30,
// kernels/bin_count.cu), direct and staged, to predict what staging the
// entries in tile order (CR_CUDA_OPTIONS place=staged) changes before it
// runs on a GPU. No GPU needed.
//
// For a scene at 1024x1024 it cuts the circles into the counting sort's
// chunks (132 multiprocessors x 3, at most one a round of 1024 circles, as
// count_chunks does on the H100 and H200), numbers each round's entries
// (circle, bin) in input order as bin.place does, gives every entry its
// position (the bin's start, the chunks before, its rank in the chunk), and
// counts, per warp store request of 32 entries:
//   direct: the entries of a window in entry order (lanes = consecutive
//           entries), each stored at its position;
//   staged: the batch's entries (2048 at a time) in slot order (by bin,
//           then input order), lanes = consecutive slots.
// It prints the requests, the sectors a request on average, and the sectors
// a store of the whole list would touch at best (its bytes / 32).
//
// Build and run (from the project root, after scripts/setup.sh):
//   g++ -O2 -std=c++17 -I. scripts/probes/place_sectors.cpp build/libcr_scenes.a build/libcr_core.a
//       -o /tmp/place_sectors
//   /tmp/place_sectors rand1M:4:8 rand100k:4:4 snowsingle:4:8 micro2M:1:4
// (scene:coarse:bytes of an entry: 8 for the (circle, mask) pairs that
// bin.split reads next, 4 for a list of circle indices: the paths
// plan_binning takes at 1024x1024).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "render/core/shading.h"
#include "render/core/tile_math.h"
#include "scenes/scene.h"

namespace {

using namespace cr;

constexpr int kSize = 1024, kTile = 16, kRound = 1024, kWindow = 256, kStage = 2048, kChunks = 132 * 3;

/// Sectors a request of these byte addresses touches.
size_t sectors(const std::vector<unsigned long long>& addr) {
    std::set<unsigned long long> s;
    for (unsigned long long a : addr) s.insert(a / 32);
    return s.size();
}

struct Counts {
    size_t requests = 0, sectors = 0;
};

/// Adds the requests of `pos` (positions in store order), 32 lanes each.
void add_requests(const std::vector<unsigned int>& pos, int bytes, Counts& c) {
    for (size_t w = 0; w < pos.size(); w += 32) {
        std::vector<unsigned long long> addr;
        for (size_t i = w; i < std::min(pos.size(), w + 32); ++i) addr.push_back((unsigned long long)pos[i] * bytes);
        ++c.requests;
        c.sectors += sectors(addr);
    }
}

void run(const std::string& name, int coarse, int bytes) {
    const Scene s = make_scene(name);
    const int bin = kTile * coarse, bins_x = (kSize + bin - 1) / bin, bins = bins_x * bins_x;
    const int64_t n = static_cast<int64_t>(s.count());
    std::vector<TileRange> range(n);
    for (int64_t i = 0; i < n; ++i)
        range[i] = tiles_of_box(circle_pixel_box(s.x[i], s.y[i], s.radius[i], kSize, kSize), bin);
    const int chunks = static_cast<int>(std::min<int64_t>(kChunks, std::max<int64_t>(1, (n + kRound - 1) / kRound)));
    const int64_t per = (std::max<int64_t>(n, 1) + chunks - 1) / chunks;
    // bin.count and bin.scan: each chunk's entries per bin, each bin's start
    std::vector<std::vector<unsigned int>> count(chunks, std::vector<unsigned int>(bins, 0));
    for (int64_t i = 0; i < n; ++i)
        for (int y = range[i].ty0; y < range[i].ty1; ++y)
            for (int x = range[i].tx0; x < range[i].tx1; ++x) ++count[i / per][y * bins_x + x];
    std::vector<unsigned int> running(bins, 0), start(bins, 0);
    unsigned long long total = 0;
    for (int t = 0; t < bins; ++t) {
        start[t] = static_cast<unsigned int>(total);
        for (int b = 0; b < chunks; ++b) total += count[b][t];
    }
    Counts direct, staged;
    std::vector<unsigned int> first = start;  // chunk b's first position of each bin
    for (int b = 0; b < chunks; ++b) {
        running = first;
        for (int64_t r0 = b * per; r0 < std::min(n, (b + 1) * per); r0 += kRound) {
            std::vector<std::pair<int, unsigned int>> entries;  // (bin, position), input order
            for (int64_t i = r0; i < std::min({n, r0 + kRound, (b + 1) * per}); ++i)
                for (int y = range[i].ty0; y < range[i].ty1; ++y)
                    for (int x = range[i].tx0; x < range[i].tx1; ++x) {
                        const int t = y * bins_x + x;
                        entries.push_back({t, running[t]++});
                    }
            for (size_t w0 = 0; w0 < entries.size(); w0 += kWindow) {  // direct: a window's warps in entry order
                std::vector<unsigned int> pos;
                for (size_t e = w0; e < std::min(entries.size(), w0 + kWindow); ++e) pos.push_back(entries[e].second);
                add_requests(pos, bytes, direct);
            }
            for (size_t b0 = 0; b0 < entries.size(); b0 += kStage) {  // staged: slots by bin, then input order
                std::vector<std::pair<int, unsigned int>> batch(entries.begin() + b0,
                                                                 entries.begin() + std::min(entries.size(), b0 + kStage));
                std::stable_sort(batch.begin(), batch.end(), [](auto& a, auto& c) { return a.first < c.first; });
                std::vector<unsigned int> pos;
                for (auto& e : batch) pos.push_back(e.second);
                add_requests(pos, bytes, staged);
            }
        }
        for (int t = 0; t < bins; ++t) first[t] += count[b][t];
    }
    std::printf("%-10s %d bins of %dx%d tiles, %d chunks, %llu entries of %d bytes (%.1f a bin a round)\n", name.c_str(),
                bins, coarse, coarse, chunks, total, bytes,
                double(total) / bins / std::max<double>(1, double(n) / kRound));
    std::printf("   direct: %zu requests, %.1f sectors a request, %zu sectors\n", direct.requests,
                double(direct.sectors) / std::max<size_t>(1, direct.requests), direct.sectors);
    std::printf("   staged: %zu requests, %.1f sectors a request, %zu sectors (%.0f%% fewer)\n", staged.requests,
                double(staged.sectors) / std::max<size_t>(1, staged.requests), staged.sectors,
                100.0 * (1.0 - double(staged.sectors) / std::max<size_t>(1, direct.sectors)));
    std::printf("   best:   %llu sectors (the list's bytes / 32)\n", (total * bytes + 31) / 32);
}

}  // namespace

int main(int argc, char** argv) {
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        const size_t c1 = arg.find(':'), c2 = arg.find(':', c1 + 1);
        if (c1 == std::string::npos || c2 == std::string::npos) {
            std::fprintf(stderr, "place_sectors: '%s' is not scene:coarse:bytes\n", arg.c_str());
            return 2;
        }
        run(arg.substr(0, c1), std::atoi(arg.substr(c1 + 1, c2 - c1 - 1).c_str()), std::atoi(arg.substr(c2 + 1).c_str()));
    }
    return 0;
}
