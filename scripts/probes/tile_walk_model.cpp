// A CPU model of the exact kernels' early stop (kernels/shade_tiled.cu,
// "Coalescence"), tile by tile, to predict what a change to the walk saves
// before it is written for the GPU (issue 30). No GPU needed.
//
// For each 16x16 tile of a scene at 1024x1024 it rebuilds the candidate
// list the GPU path hands the tile (circles listed for its bin of
// `coarse` x `coarse` tiles, or for the tile itself when the lists are
// split), cuts it into chunks of 64 candidates (the block's 64 threads),
// and walks it two ways:
//   now:   the kernel as it is: chunks counted from the list's start; walk
//          back chunk by chunk, each pixel's gap halving per covering hit,
//          until every gap < 2^-32; then forward from that chunk blending
//          two trajectories to the end (retry with twice the window if they
//          did not meet);
//   guess: no walk back; chunks counted from the list's end; start G chunks
//          from the end, G from the list's length and the scene's mean
//          coverage (enough candidates for `want` covering hits a pixel on
//          average); a warp blends two trajectories until all its pixels'
//          trajectories are equal at a chunk's end, then one; retry with
//          twice the window if some pixel did not meet.
// It counts, per frame, the chunks compacted, the hits listed and the hit x
// thread steps of each kind (a thread owns 4 pixels of a column), checks
// that every pixel's result equals the full blend's bits, and prints an
// instruction estimate of both walks (per thread-hit step: shrink 20, two
// trajectories 44, one 32; per thread-chunk compaction 40; per hit listed
// 70, spread over the block; per thread-chunk merge check 14: estimates
// read off the source, not measured).
//
// Build and run (from the project root, after scripts/setup.sh):
//   g++ -O2 -fopenmp -std=c++17 -I. scripts/probes/tile_walk_model.cpp build/libcr_cuda_plan.a
//       build/libcr_scenes.a build/libcr_core.a -o /tmp/tile_walk_model
//   /tmp/tile_walk_model [want=45] [check=N] [chunk=64] rand100k:4:0 biglittle:4:0 littlebig:4:0 rand1M:4:1
//   /tmp/tile_walk_model diverge:snowsingle:4:1
// (scene:coarse:split, the paths plan_binning takes at 1024x1024; want: the
// guess's covering circles a pixel, kGuessHits; check: a warp's merge check
// every N hits inside a chunk too; chunk: candidates a chunk; options apply
// to the scenes after them, want to all). Each scene prints the walk back
// and the guess ("retries": window doublings, summed over the tiles), a
// third walk, "walk-lite", that walks back following one pixel of each
// thread's four (the kernel since 2026-12-05; sample=N picks which:
// 0 row 0 of each strip, 1 row lx % 4, the kernel's, 2 all four), the
// kernel without the early stop, and the fitted shade ms
// (Counts::fitted_ms); then walk-lite's tiles scheduled on 1,320 blocks at
// once (schedule: tile order, reversed, heaviest first, bin.order's list
// lengths, two buckets), in units of a mean tile. diverge: counts snow's warp divergence instead
// (count_divergence): the runs of the snow math under the kernel's strips,
// row pairs and the quad layout (run_of), and with covered pixels packed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/bin_plan.h"
#include "render/core/coalesce.h"
#include "render/core/shading.h"
#include "render/core/tile_math.h"
#include "scenes/scene.h"

using namespace cr;

namespace {

constexpr int kSize = 1024, kTile = 16, kThreads = 64;
constexpr float kGapDone = 0x1p-32f;
int g_chunk = 64;  ///< candidates a chunk (chunk=N; the kernel: 64, one a thread)
int g_check_every = 1 << 20;
int g_sample = 0;  ///< walk-lite's pixels (sample=N): 0 row 0 of each strip, 1 row lx % 4 (a diagonal), 2 all  ///< hits between a warp's merge checks inside a chunk (check=N)

struct Counts {
    long long chunks = 0, hits = 0, shrink = 0, twice = 0, once = 0, checks = 0, retries = 0, wrong = 0;
    long long reused = 0;  ///< walk-lite: tiles whose forward pass starts on the walk's last chunk, still listed
    /// Shade ms on the H200, fitted to the walk back's measured shade stage
    /// (rand1M split 0.138 and unsplit ~0.27 ms, 2026-12-02/04): 1.87e-6 ms a
    /// tile's chunk (the loads, the scan and barriers) plus 0.0322 ms per
    /// 1e9 estimated instructions of the rest; it then gives rand100k 0.075
    /// (measured 0.0749), littlebig 0.063 (0.061), biglittle 0.063 (0.079),
    /// rand10k 0.072 (0.072).
    double fitted_ms() const { return 1.87e-6 * chunks + 0.0322e-9 * (estimate() - 40.0 * chunks * kThreads); }
    double estimate() const {
        return 40.0 * chunks + 70.0 * hits / kThreads + 20.0 * shrink + 44.0 * twice + 32.0 * once + 14.0 * checks;
    }
};

/// The circles listed for each tile (input order): per bin of coarse x
/// coarse tiles, or per tile when split.
std::vector<std::vector<int>> tile_lists(const Scene& s, int coarse, bool split) {
    const TileGrid fine = make_tile_grid(kSize, kSize, kTile);
    const TileGrid bins = make_tile_grid(kSize, kSize, kTile * coarse);
    const TileGrid& g = split ? fine : bins;
    std::vector<std::vector<int>> per(g.tile_count());
    const float inv = 1.f / kSize;
    for (size_t i = 0; i < s.count(); ++i)
        for_each_listed_tile(s.x[i], s.y[i], s.radius[i], g, inv, inv, [&](int b) { per[b].push_back(int(i)); });
    std::vector<std::vector<int>> lists(fine.tile_count());
    for (int t = 0; t < fine.tile_count(); ++t) {
        const int tx = t % fine.tiles_x, ty = t / fine.tiles_x;
        lists[t] = split ? per[t] : per[(ty / coarse) * bins.tiles_x + tx / coarse];
    }
    return lists;
}

struct TileWork {
    std::vector<int> hit_circle;        // the tile's hits, in input order
    std::vector<int> hit_chunk_front;   // chunk of each hit, chunks counted from the list's start
    std::vector<int> hit_chunk_back;    // chunks counted from the list's end (chunk 0 the first, partial)
    int candidates = 0;  // the list's length
    int chunks_front = 0, chunks_back = 0;
    std::vector<std::vector<int>> cover;  // per pixel (row-major in the tile): indices into hit_circle
};

TileWork tile_work(const Scene& s, const std::vector<int>& list, int tx, int ty) {
    const TileGrid g = make_tile_grid(kSize, kSize, kTile);
    const float inv = 1.f / kSize;
    TileWork w;
    const int n = int(list.size());
    w.candidates = n;
    w.chunks_front = (n + g_chunk - 1) / g_chunk;
    w.chunks_back = w.chunks_front;
    const int pad = w.chunks_back * g_chunk - n;  // the first chunk from the end's count is partial
    for (int k = 0; k < n; ++k) {
        const int i = list[k];
        const PixelBox box = circle_pixel_box(s.x[i], s.y[i], s.radius[i], kSize, kSize);
        if (!circle_touches_tile(s.x[i], s.y[i], s.radius[i], box, g, tx, ty, inv, inv)) continue;
        w.hit_circle.push_back(i);
        w.hit_chunk_front.push_back(k / g_chunk);
        w.hit_chunk_back.push_back((k + pad) / g_chunk);
    }
    w.cover.resize(kTile * kTile);
    for (int p = 0; p < kTile * kTile; ++p) {
        const float cx = pixel_center(tx * kTile + p % kTile, inv), cy = pixel_center(ty * kTile + p / kTile, inv);
        for (int h = 0; h < int(w.hit_circle.size()); ++h) {
            const int i = w.hit_circle[h];
            if (covers(center_distance2(s.x[i], s.y[i], cx, cy), s.radius[i])) w.cover[p].push_back(h);
        }
    }
    return w;
}

Fragment frag(const Scene& s, int i) { return shade_flat(s.r[i], s.g[i], s.b[i]); }

/// The full blend of pixel p's covering hits from the white background.
void full_pixel(const Scene& s, const TileWork& w, int p, float out[3]) {
    float a = 1.f;
    out[0] = out[1] = out[2] = 1.f;
    for (int h : w.cover[p]) blend(out[0], out[1], out[2], a, frag(s, w.hit_circle[h]));
}

/// Runs pixel p's two trajectories over its hits with index >= first_hit;
/// returns the index (into cover[p]) after which they were equal, or -1;
/// `out`: the lo trajectory's end.
int trajectories(const Scene& s, const TileWork& w, int p, int first_hit, ValueBounds b, float out[3]) {
    Trajectories t = start_trajectories(b.lo, b.hi);
    int merged = -1;
    const auto& c = w.cover[p];
    for (int k = 0; k < int(c.size()); ++k) {
        if (c[k] < first_hit) continue;
        if (blend_trajectories(t, frag(s, w.hit_circle[c[k]])) && merged < 0) merged = c[k];
    }
    if (first_hit == 0) {  // from the pixel's own incoming value: exact by construction
        full_pixel(s, w, p, out);
        return 0;
    }
    std::copy(t.lo, t.lo + 3, out);
    return merged;
}

int first_hit_of_chunk(const std::vector<int>& chunk_of_hit, int k0) {
    return int(std::lower_bound(chunk_of_hit.begin(), chunk_of_hit.end(), k0) - chunk_of_hit.begin());
}

/// The kernel as it is (see the file comment).
void walk_now(const Scene& s, const TileWork& w, ValueBounds b, Counts& c) {
    std::vector<float> gap(kTile * kTile, b.hi - b.lo);
    int k0 = 0;
    for (int k = w.chunks_front - 1; k >= 0; --k) {
        if (std::all_of(gap.begin(), gap.end(), [](float v) { return v < kGapDone; })) {
            k0 = k + 1;
            break;
        }
        const int h0 = first_hit_of_chunk(w.hit_chunk_front, k), h1 = first_hit_of_chunk(w.hit_chunk_front, k + 1);
        ++c.chunks;
        c.hits += h1 - h0;
        c.shrink += (h1 - h0) * kThreads;
        for (int p = 0; p < kTile * kTile; ++p)
            for (int h : w.cover[p])
                if (h >= h0 && h < h1) gap[p] *= .5f;
    }
    for (;;) {
        const int first = first_hit_of_chunk(w.hit_chunk_front, k0);
        const int hits = int(w.hit_circle.size()) - first;
        c.chunks += w.chunks_front - k0;
        c.hits += hits;
        c.twice += hits * kThreads;
        bool met = true;
        for (int p = 0; p < kTile * kTile && met; ++p) {
            float v[3];
            met = trajectories(s, w, p, first, b, v) >= 0;
        }
        if (met || k0 == 0) break;
        ++c.retries;
        k0 = std::max(0, w.chunks_front - 2 * std::max(1, w.chunks_front - k0));
    }
}

/// Forward from `window` chunks before the list's end (chunks counted from
/// the end), a warp blending one trajectory once its pixels met; the window
/// doubles until every pixel met.
void forward_single(const Scene& s, const TileWork& w, ValueBounds b, int window, Counts& c) {
    for (;;) {
        const int k0 = std::max(0, w.chunks_back - window);
        const int first = first_hit_of_chunk(w.hit_chunk_back, k0);
        // per pixel: the hit after which its trajectories are equal
        std::vector<int> merged(kTile * kTile);
        bool met = true;
        for (int p = 0; p < kTile * kTile; ++p) {
            float v[3], ref[3];
            merged[p] = trajectories(s, w, p, first, b, v);
            if (merged[p] < 0) met = false;
            full_pixel(s, w, p, ref);
            if (merged[p] >= 0 && (v[0] != ref[0] || v[1] != ref[1] || v[2] != ref[2])) ++c.wrong;
        }
        c.chunks += w.chunks_back - k0;
        c.checks += (w.chunks_back - k0) * kThreads;
        c.hits += int(w.hit_circle.size()) - first;
        // a warp checks its pixels after every kCheckEvery-th hit of a chunk and at the chunk's end
        const int total = int(w.hit_circle.size());
        const auto is_check = [&](int h) {
            const int in_chunk = h - first_hit_of_chunk(w.hit_chunk_back, w.hit_chunk_back[h]);
            return (in_chunk + 1) % g_check_every == 0 || h + 1 == total || w.hit_chunk_back[h + 1] != w.hit_chunk_back[h];
        };
        for (int h = first; h < total; ++h) c.checks += is_check(h) ? kThreads : 0;
        for (int warp = 0; warp < 2; ++warp) {  // warp 0: rows 0-7, warp 1: rows 8-15
            int single_from = total;             // first hit blended once
            if (met && k0 > 0) {
                int last = -1;
                for (int p = warp * 128; p < warp * 128 + 128; ++p) last = std::max(last, merged[p]);
                single_from = std::max(first, last);
                while (single_from < total && !is_check(single_from)) ++single_from;
                single_from = std::min(total, single_from + 1);
            }
            if (k0 == 0) single_from = first;  // from the pixels' own values: one trajectory
            c.twice += (single_from - first) * 32;
            c.once += (total - single_from) * 32;
        }
        if (met || k0 == 0) break;
        ++c.retries;
        window *= 2;
    }
}

/// The guessed start (see the file comment).
void walk_guess(const Scene& s, const TileWork& w, ValueBounds b, double want, double coverage, Counts& c) {
    // as shade_tile_guessed: the list's length x want / the mean coverage (BinPlan::window_per_candidate)
    const double candidates = double(w.candidates) * (want / std::max(1.0, coverage));
    forward_single(s, w, b, std::max(1, int(std::ceil(candidates / g_chunk))), c);
}

/// The walk back on a sample: each thread tracks the gap of its strip's
/// first pixel only (tile rows 0, 4, 8, 12), chunks counted from the end;
/// then forward_single. `lite` counts its shrink steps (a quarter of the
/// pixels: about 11 instructions a thread-hit instead of 20).
void walk_lite(const Scene& s, const TileWork& w, ValueBounds b, Counts& c, long long& lite) {
    std::vector<float> gap(kTile * kTile, b.hi - b.lo);
    int window = w.chunks_back;
    for (int k = w.chunks_back - 1; k >= 0; --k) {
        bool done = true;
        for (int p = 0; p < kTile * kTile; p += 1) {
            const int x = p % kTile, y = p / kTile;
            const bool sampled = g_sample == 2 || (g_sample == 1 ? y % 4 == x % 4 : y % 4 == 0);
            done = done && (!sampled || gap[p] < kGapDone);
        }
        if (done) {
            window = w.chunks_back - (k + 1);
            break;
        }
        const int h0 = first_hit_of_chunk(w.hit_chunk_back, k), h1 = first_hit_of_chunk(w.hit_chunk_back, k + 1);
        ++c.chunks;
        c.hits += h1 - h0;
        lite += (h1 - h0) * kThreads;
        for (int p = 0; p < kTile * kTile; ++p)
            for (int h : w.cover[p])
                if (h >= h0 && h < h1) gap[p] *= .5f;
    }
    if (window >= 1) ++c.reused;  // the walk compacted the window's first chunk last
    forward_single(s, w, b, std::max(1, window), c);
}

/// Snow's divergence (mode diverge:scene:coarse:split): the blend loop
/// shades row r of a warp's 4 (two 16-pixel rows a row index) when any of
/// its 32 pixels is covered, so a warp runs the snow math once per (hit,
/// row index) with any covered lane; packing the covered pixels of a (hit,
/// warp) onto the lanes would run it ceil(covered / 32) times.
struct Divergence {
    long long covered = 0, row_runs = 0, packed_runs = 0, warp_hits = 0;
    long long pair_runs = 0, quad_runs = 0;  ///< runs under the other two mappings (run_of)
};

/// The run (0..3, the thread's row index) of pixel (x, y) of a warp's
/// 16 x 8 pixels under three mappings of pixels to (lane, run): 0, the
/// kernel's strips (lanes 0-15 rows r, lanes 16-31 rows r + 4: a run is two
/// rows 4 apart); 1, pairs (a run is rows 2r and 2r + 1); 2, quadrants (a
/// run is an 8 x 4 block).
int run_of(int mapping, int x, int y) {
    if (mapping == 0) return y % 4;
    if (mapping == 1) return y / 2;
    return x / 8 + 2 * (y / 4);
}

void count_divergence(const TileWork& w, Divergence& d) {
    const int n = int(w.hit_circle.size());
    std::vector<std::vector<char>> cov(kTile * kTile, std::vector<char>(n, 0));
    for (int p = 0; p < kTile * kTile; ++p)
        for (int h : w.cover[p]) cov[p][h] = 1;
    for (int h = 0; h < n; ++h)
        for (int warp = 0; warp < 2; ++warp) {
            int in_warp = 0;
            int lanes[3][4] = {};
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < kTile; ++x) {
                    const char c = cov[(warp * 8 + y) * kTile + x][h];
                    in_warp += c;
                    for (int m = 0; m < 3; ++m) lanes[m][run_of(m, x, y)] += c;
                }
            for (int r = 0; r < 4; ++r) {
                d.row_runs += lanes[0][r] > 0;
                d.pair_runs += lanes[1][r] > 0;
                d.quad_runs += lanes[2][r] > 0;
            }
            d.covered += in_warp;
            d.packed_runs += (in_warp + 31) / 32;
            ++d.warp_hits;
        }
}

/// The frame's shading time in units of a tile's fitted time when `slots`
/// blocks run at once and tiles start in the order `order` (the tiled
/// kernel: tile order, as blocks are issued; each block takes the next tile
/// when one finishes): greedy list scheduling. Returns {makespan, the
/// mean-work bound (total / slots)}.
std::pair<double, double> schedule(const std::vector<double>& work, const std::vector<int>& order, int slots) {
    std::vector<double> busy(slots, 0.0);
    double total = 0.0;
    for (int t : order) {
        auto it = std::min_element(busy.begin(), busy.end());
        *it += work[t];
        total += work[t];
    }
    return {*std::max_element(busy.begin(), busy.end()), total / slots};
}

/// Per tile: the walk-lite's fitted time (Counts::fitted_ms's terms).
double tile_fitted(const Counts& c, long long lite_steps) {
    const double est = c.estimate() + 11.0 * lite_steps;
    return 1.87e-6 * c.chunks + 0.0322e-9 * (est - 40.0 * c.chunks * kThreads);
}

/// The frame's shading under several tile orders (1,320 blocks at once:
/// 10 an SM x 132 SMs), in units of a mean tile: tile order (the tiled
/// kernel), reversed, heaviest first, bin.order's list lengths, and two
/// buckets (tiles above k x the mean first, each in tile order).
void print_schedules(const char* what, const std::vector<double>& work, const std::vector<std::vector<int>>& lists) {
    const int tiles = static_cast<int>(work.size());
    std::vector<int> order(tiles);
    for (int t = 0; t < tiles; ++t) order[t] = t;
    const auto fwd = schedule(work, order, 1320);
    std::reverse(order.begin(), order.end());
    const auto rev = schedule(work, order, 1320);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return work[a] > work[b]; });
    const auto heavy = schedule(work, order, 1320);
    std::sort(order.begin(), order.end());
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lists[a].size() > lists[b].size(); });
    const auto by_length = schedule(work, order, 1320);  // bin.order's: list length, ties in tile order
    const double mean = fwd.second * 1320 / tiles;
    std::printf("   %s schedule (1320 blocks at once), in mean tiles: tile order %.2f, reversed %.2f, heaviest first "
                "%.2f, by list length (bin.order) %.2f, bound %.2f; heaviest tile %.1f\n",
                what, fwd.first / mean, rev.first / mean, heavy.first / mean, by_length.first / mean, fwd.second / mean,
                *std::max_element(work.begin(), work.end()) / mean);
    for (double k : {1.5, 2.0, 3.0}) {
        std::vector<int> two;
        for (int pass = 0; pass < 2; ++pass)
            for (int t = 0; t < tiles; ++t)
                if ((work[t] > k * mean) == (pass == 0)) two.push_back(t);
        size_t heavy_tiles = 0;
        for (double x : work) heavy_tiles += x > k * mean;
        std::printf("     two buckets (k=%.1f, %zu heavy tiles): %.2f\n", k, heavy_tiles,
                    schedule(work, two, 1320).first / mean);
    }
    const std::vector<std::vector<double>> bounds = {{2.0, 1.5, 1.25}, {1.5, 1.25, 1.0}, {3.0, 2.0, 1.5, 1.25, 1.0}};
    for (const auto& ks : bounds) {  // buckets: above ks[0] x the mean, then above ks[1], ..., then the rest
        std::vector<int> groups;
        for (size_t b = 0; b <= ks.size(); ++b)
            for (int t = 0; t < tiles; ++t) {
                size_t g = 0;
                while (g < ks.size() && !(work[t] > ks[g] * mean)) ++g;
                if (g == b) groups.push_back(t);
            }
        std::printf("     %zu buckets (k=%.2f..%.2f): %.2f\n", ks.size() + 1, ks.front(), ks.back(),
                    schedule(work, groups, 1320).first / mean);
    }
}

}  // namespace

int main(int argc, char** argv) {
    double want = 45.0;
    for (int a = 1; a < argc; ++a)
        if (std::string(argv[a]).rfind("want=", 0) == 0) want = std::atof(argv[a] + 5);
    std::printf("scene path | now: chunks hits shrink twice retries est | guess(want %.0f): chunks hits twice once "
                "retries wrong est | est ratio\n",
                want);
    for (int a = 1; a < argc; ++a) {
        std::string arg = argv[a];
        if (arg.rfind("want=", 0) == 0) continue;
        if (arg.rfind("chunk=", 0) == 0) {
            g_chunk = std::atoi(arg.c_str() + 6);
            continue;
        }
        if (arg.rfind("sample=", 0) == 0) {
            g_sample = std::atoi(arg.c_str() + 7);
            continue;
        }
        if (arg.rfind("check=", 0) == 0) {
            g_check_every = std::atoi(arg.c_str() + 6);
            continue;
        }
        const bool diverge = arg.rfind("diverge:", 0) == 0;
        if (diverge) arg = arg.substr(8);
        const size_t c1 = arg.find(':'), c2 = arg.rfind(':');
        const std::string name = arg.substr(0, c1);
        const int coarse = std::atoi(arg.substr(c1 + 1, c2 - c1 - 1).c_str());
        const bool split = arg.substr(c2 + 1) == "1";
        const Scene s = make_scene(name);
        const ValueBounds b = value_bounds(s);
        const double coverage = mean_coverage(s);  // the plan's own figure (sampled), as the kernel gets it
        const auto lists = tile_lists(s, coarse, split);
        const TileGrid g = make_tile_grid(kSize, kSize, kTile);
        if (diverge) {
            std::vector<Divergence> per(g.tile_count());
#pragma omp parallel for schedule(dynamic)
            for (int t = 0; t < g.tile_count(); ++t) count_divergence(tile_work(s, lists[t], t % g.tiles_x, t / g.tiles_x), per[t]);
            Divergence d;
            for (const Divergence& x : per)
                d.covered += x.covered, d.row_runs += x.row_runs, d.packed_runs += x.packed_runs, d.warp_hits += x.warp_hits,
                d.pair_runs += x.pair_runs, d.quad_runs += x.quad_runs;
            std::printf("%s runs by mapping: strips %lld (%.1f%% useful), row pairs %lld (%.1f%%), 8x4 quadrants %lld (%.1f%%)\n",
                        name.c_str(), d.row_runs, 100.0 * d.covered / (32.0 * d.row_runs), d.pair_runs,
                        100.0 * d.covered / (32.0 * d.pair_runs), d.quad_runs, 100.0 * d.covered / (32.0 * d.quad_runs));
            std::printf("%s divergence: warp x hit %lld, covered pixels %lld (%.1f a warp x hit), snow math runs "
                        "row by row %lld (%.2f a warp x hit, %.1f%% of lanes useful), packed %lld (%.2f, %.1f%%)\n",
                        name.c_str(), d.warp_hits, d.covered, double(d.covered) / d.warp_hits, d.row_runs,
                        double(d.row_runs) / d.warp_hits, 100.0 * d.covered / (32.0 * d.row_runs), d.packed_runs,
                        double(d.packed_runs) / d.warp_hits, 100.0 * d.covered / (32.0 * d.packed_runs));
            continue;
        }
        std::vector<Counts> now(g.tile_count()), guess(g.tile_count()), lite(g.tile_count()), full(g.tile_count());
        std::vector<long long> lite_steps(g.tile_count());
#pragma omp parallel for schedule(dynamic)
        for (int t = 0; t < g.tile_count(); ++t) {
            const TileWork w = tile_work(s, lists[t], t % g.tiles_x, t / g.tiles_x);
            full[t].chunks = w.chunks_front;  // no early stop: every chunk, every hit blended once
            full[t].hits = int(w.hit_circle.size());
            full[t].once = full[t].hits * kThreads;
            walk_now(s, w, b, now[t]);
            walk_guess(s, w, b, want, coverage, guess[t]);
            walk_lite(s, w, b, lite[t], lite_steps[t]);
        }
        Counts n, q, l, f;
        long long ls = 0;
        for (int t = 0; t < g.tile_count(); ++t) {
            const Counts& x = now[t];
            const Counts& y = guess[t];
            n.chunks += x.chunks, n.hits += x.hits, n.shrink += x.shrink, n.twice += x.twice, n.retries += x.retries;
            q.chunks += y.chunks, q.hits += y.hits, q.twice += y.twice, q.once += y.once, q.retries += y.retries;
            q.checks += y.checks, q.wrong += y.wrong;
            f.chunks += full[t].chunks, f.hits += full[t].hits, f.once += full[t].once;
            const Counts& z = lite[t];
            l.chunks += z.chunks, l.hits += z.hits, l.twice += z.twice, l.once += z.once, l.retries += z.retries;
            l.checks += z.checks, l.wrong += z.wrong, ls += lite_steps[t], l.reused += z.reused;
        }
        std::printf("%s %dx%d%s | %lld %lld %lld %lld %lld %.3g | %lld %lld %lld %lld %lld %lld %.3g | %.2f\n",
                    name.c_str(), coarse, coarse, split ? " split" : "", n.chunks, n.hits, n.shrink, n.twice,
                    n.retries, n.estimate(), q.chunks, q.hits, q.twice, q.once, q.retries, q.wrong, q.estimate(),
                    q.estimate() / n.estimate());
        std::printf("   fitted shade ms: walk back %.4f, guess %.4f\n", n.fitted_ms(), q.fitted_ms());
        std::printf("   no early stop: chunks %lld hits %lld once %lld est %.3g (fitted %.4f ms) | walk back / it %.2f, guess / it %.2f\n",
                    f.chunks, f.hits, f.once, f.estimate(), f.fitted_ms(), n.estimate() / f.estimate(), q.estimate() / f.estimate());
        const double lite_est = l.estimate() + (g_sample == 2 ? 20.0 : 11.0) * ls;
        std::printf("   walk-lite: chunks %lld hits %lld shrink(lite) %lld twice %lld once %lld retries %lld wrong %lld est %.3g | %.2f\n",
                    l.chunks, l.hits, ls, l.twice, l.once, l.retries, l.wrong, lite_est, lite_est / n.estimate());
        {  // the tail, for the walk back (walk-lite, the kernel's) and the guessed start
            std::vector<double> walk(g.tile_count()), guessed(g.tile_count());
            for (int t = 0; t < g.tile_count(); ++t) {
                walk[t] = tile_fitted(lite[t], lite_steps[t]);
                guessed[t] = guess[t].fitted_ms();
            }
            print_schedules("walk-lite", walk, lists);
            print_schedules("guess", guessed, lists);
            std::vector<double> plain(g.tile_count());  // no early stop: every chunk, every hit once
            for (int t = 0; t < g.tile_count(); ++t) plain[t] = full[t].fitted_ms();
            print_schedules("no early stop", plain, lists);
        }
        std::printf("   walk-lite (sample=%d) fitted shade ms %.4f; its first forward chunk reused in %lld tiles: %.4f\n",
                    g_sample, 1.87e-6 * l.chunks + 0.0322e-9 * (lite_est - 40.0 * l.chunks * kThreads), l.reused,
                    1.87e-6 * (l.chunks - l.reused) + 0.0322e-9 * (lite_est - 40.0 * l.chunks * kThreads));
        std::fflush(stdout);
    }
}
