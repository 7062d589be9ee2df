// plan_binning: which binning path and culling a scene takes (kernels/bin_plan.h).
#include "kernels/bin_plan.h"

#include <algorithm>

namespace cr {

namespace {

/// Circles that span many tiles are listed once per bin of 2x2 or 4x4
/// tiles, so binning handles several times fewer pairs while every tile of
/// a bin tests more candidates (cheap: the exact test and the ballot
/// compaction); tiny circles (most in one tile) keep bins of one tile.
/// bin.compact is used when circles x bins is at most o.compact_limit (its
/// cost and memory grow with that product), with 4x4 bins when circles span
/// enough tiles. Measured on the H200 (docs/PERFORMANCE.md, steps 14-17).
BinPlan plan_bins(const Scene& s, const TileGrid& g, const CudaOptions& o, double mean) {
    const auto bins = [&](int c) { return static_cast<long long>(coarse_grid(g, c).tile_count()); };
    const long long limit = std::min(o.compact_limit, 1ll << 31);  // bins x circles must index the lists in 32 bits
    const auto fits = [&](int c) { return o.allow_compact && static_cast<long long>(s.count()) * bins(c) <= limit; };
    BinPlan plan;
    plan.coarse = o.coarse != 0 ? o.coarse : mean >= kCoarseTiles ? 4 : 1;
    plan.compact = fits(plan.coarse);
    return plan;
}

/// Where the counting sort (Choice::Auto) bins faster than the sorting
/// stages: on single tiles, scenes of small circles (mean below
/// kCountTiles; with larger circles the entries per circle make bin.place
/// slower than sorting 4x4 bins and splitting them); on bins of 4x4 (or
/// 2x2, forced: not measured) tiles, every scene the sorting stages would
/// bin (measured on the H200: docs/PERFORMANCE.md, steps 24 and 26).
bool counting_pays(const BinPlan& plan, double mean) { return plan.coarse > 1 || mean < kCountTiles; }

/// The mean of f(i) over up to 4096 evenly spaced circles i of `s` (0 for an
/// empty scene): the planner's sample, cheap at setup for millions of circles.
template <class F>
double sampled_mean(const Scene& s, F f) {
    const size_t n = s.count();
    if (n == 0) return 0;
    const size_t step = std::max<size_t>(1, n / 4096);
    double sum = 0;
    size_t sampled = 0;
    for (size_t i = 0; i < n; i += step, ++sampled) sum += f(i);
    return sum / static_cast<double>(sampled);
}

}  // namespace

TileGrid coarse_grid(const TileGrid& g, int coarse) { return make_tile_grid(g.width, g.height, g.tile * coarse); }

double mean_tiles_per_circle(const Scene& s, const TileGrid& g) {
    return sampled_mean(s, [&](size_t i) {
        const PixelBox box = circle_pixel_box(s.x[i], s.y[i], s.radius[i], g.width, g.height);
        return static_cast<double>(tiles_of_box(box, g.tile).count());
    });
}

double mean_coverage(const Scene& s) {
    // the sum over all circles: their count times the mean area of the sample
    return static_cast<double>(s.count()) *
           sampled_mean(s, [&](size_t i) { return 3.14159265358979 * s.radius[i] * s.radius[i]; });
}

// plan_bins, plus: no binning for scenes of few circle x tile tests; the
// counting sort instead of the sorting stages (counting_pays); the
// shading's culling for small circles (mean below kRowCullTiles; 16x16
// tiles, 4 rows a thread, no teaching variant): strip masks in every tiled
// kernel, or row culling in the exact ones when strip masks are off or
// rowcull=on; and bin.split after coarse bins (counted or sorted) for the
// exact kernels (each tile then tests only its own circles) and for ftb on
// snow scenes (faint flakes rarely stop a pixel early, so ftb walks its
// whole lists there, as the exact kernels do; on flat scenes it reads only
// their ends and the split would cost more than it saves); exact early
// stopping (coalesce) for tiled and persistent on flat scenes at least
// kCoalesceDepth circles deep, which then reads only its lists' ends too
// (no bin.split where circles span kStopSplitTiles tiles or more).
BinPlan plan_binning(const Scene& s, const TileGrid& g, KernelKind kind, const CudaOptions& o, int count_tile_limit,
                     bool bounded, int staged_tile_limit) {
    const double mean = mean_tiles_per_circle(s, g);
    BinPlan plan = plan_bins(s, g, o, mean);
    plan.direct = static_cast<long long>(s.count()) * g.tile_count() <= o.direct_limit;
    const bool shape = g.tile == 16 && (o.rows_per_thread == 4 || kind == KernelKind::FrontToBack) && o.shade_variant == 0;
    const bool exact = kind != KernelKind::FrontToBack;
    const bool small = mean < kRowCullTiles;
    plan.strips = shape && chosen(o.strips, small && o.row_cull != Choice::On);
    plan.row_cull = shape && !plan.strips && chosen(o.row_cull, exact && small);
    const int bins = coarse_grid(g, plan.coarse).tile_count();
    const bool masks_fit = bins <= static_cast<int>(kSplitBinIds);
    const bool stoppable = exact && g.tile == 16 && o.rows_per_thread == 4 && o.shade_variant == 0 && bounded;
    const double coverage = mean_coverage(s);
    plan.coalesce = stoppable && chosen(o.coalesce, s.shade != ShadeMode::Snow && coverage >= kCoalesceDepth);
    plan.guess = plan.coalesce && chosen(o.guess_start, !plan.compact);
    // the shading switches of the tiled and persistent kernels' 16x16, 4-row shape (naive and unordered have
    // none): the quad layout and snow's reciprocal where they do not stop early, circle records on flat scenes
    const bool tiled_shape = (kind == KernelKind::Tiled || kind == KernelKind::Persistent) && g.tile == 16 &&
                             o.rows_per_thread == 4 && o.shade_variant == 0;
    const bool plain_exact = tiled_shape && !plan.coalesce;
    const bool snow = s.shade == ShadeMode::Snow;
    plan.quads = plain_exact && !plan.strips && !plan.row_cull && chosen(o.quad_layout, snow);
    plan.snow_reciprocal = plain_exact && snow && chosen(o.snow_reciprocal, plan.quads);
    plan.records = tiled_shape && o.circle_records && s.shade == ShadeMode::Flat;
    plan.window_per_candidate = plan.guess ? o.guess_hits / std::max(1.0, coverage) : 0.0;
    // a kernel that reads only its lists' ends (ftb, or the exact kernels stopping early among circles that
    // span a bin: kStopSplitTiles) gains less from per-tile lists than bin.split costs; snow's faint flakes
    // make every kernel walk its whole lists
    const bool reads_ends = !exact || (plan.coalesce && mean >= kStopSplitTiles);
    plan.split = plan.coarse > 1 && !plan.compact && masks_fit && chosen(o.split, !reads_ends || s.shade == ShadeMode::Snow);
    // the counting sort replaces the sorting stages where they would run (bin.split, if planned, follows it)
    const bool countable = !plan.compact && bins <= count_tile_limit;
    plan.count = countable && chosen(o.counting, counting_pays(plan, mean));
    const bool large = static_cast<double>(s.count()) >= kStagedPlaceCircles;
    plan.staged_place = plan.count && bins <= staged_tile_limit && chosen(o.staged_place, plan.split && large);
    return plan;
}

namespace {

/// The path's notes on the shading that do not depend on binning.
std::string shading_notes(const BinPlan& plan) {
    std::string p;
    if (plan.quads) p += "; quad layout";
    if (plan.snow_reciprocal) p += "; reciprocal division";
    if (plan.records) p += "; circle records";
    return p;
}

}  // namespace

int plan_cull_bits(const BinPlan& plan) {
    return (plan.row_cull ? kShadeRowCull : 0) | (plan.strips ? kShadeStripMask : 0);
}

int plan_shade_bits(const BinPlan& plan, bool binned) {
    const int stop = plan.coalesce ? kShadeCoalesce | (plan.guess ? kShadeGuess : 0) : 0;
    const int layout = (plan.quads ? kShadeQuads : 0) | (plan.snow_reciprocal ? kShadeSnowReciprocal : 0) |
                       (plan.records ? kShadeRecords : 0);
    return (binned ? plan_cull_bits(plan) : 0) | stop | layout;
}

bool plan_recorded_order(const BinPlan& plan, KernelKind kind, Choice order) {
    if (order == Choice::Off) return false;
    if (kind == KernelKind::Persistent) return true;
    return kind == KernelKind::Tiled && plan.coalesce && (order == Choice::On || (plan.count && !plan.direct));
}

int shade_kernel_bits(int variant, bool snow) {
    const int cull = (variant & kShadeStripMask) != 0 ? kShadeStripMask : variant & kShadeRowCull;
    const int records = snow ? 0 : variant & kShadeRecords;
    if ((variant & kShadeCoalesce) != 0) return cull | kShadeCoalesce | (variant & kShadeGuess) | records;
    const int layout = cull == 0 ? variant & kShadeQuads : 0;
    return cull | layout | (snow ? variant & kShadeSnowReciprocal : records);
}

std::vector<int> recorded_order_groups(const std::vector<unsigned int>& work) {
    const int tiles = static_cast<int>(work.size());
    unsigned long long total = 0;
    for (unsigned int w : work) total += w;
    std::vector<int> order;
    order.reserve(work.size());
    for (int g = 0; g < 4; ++g)
        for (int t = 0; t < tiles; ++t)
            if (work_group(work[t], tiles, total) == g) order.push_back(t);
    return order;
}

std::string describe_path(const BinPlan& plan, bool binned, bool counted) {
    if (!binned) return "no binning" + shading_notes(plan);
    const std::string bins = std::to_string(plan.coarse) + "x" + std::to_string(plan.coarse) + "-tile bins";
    std::string p = plan.compact ? "bin.compact, " + bins
                                 : (!counted                ? "sorted "
                                    : plan.staged_place ? "counting sort (staged place), "
                                                        : "counting sort, ") +
                                       bins + (plan.split ? ", split" : "");
    if (plan.strips) p += "; strip masks";
    if (plan.row_cull) p += "; row culling";
    if (plan.coalesce) p += plan.guess ? "; early stop, guessed start" : "; early stop";
    return p + shading_notes(plan);
}

}  // namespace cr

namespace cr {

unsigned long long pair_batch_limit(const BinPlan& plan, long long max_pairs_per_batch) {
    const unsigned long long per_pair = plan.split ? static_cast<unsigned long long>(plan.coarse) * plan.coarse : 1;
    const unsigned long long most = max_pairs_per_batch > 0 ? static_cast<unsigned long long>(max_pairs_per_batch) : 0;
    return std::max<unsigned long long>(1, most / per_pair);
}

std::vector<PairBatch> cut_pair_batches(const std::vector<unsigned long long>& offsets, unsigned long long pairs,
                                        unsigned long long cap) {
    const int64_t count = static_cast<int64_t>(offsets.size());
    if (pairs <= cap) return {PairBatch{0, count, 0, pairs}};
    const auto first_pair = [&](int64_t i) { return i < count ? offsets[static_cast<size_t>(i)] : pairs; };
    std::vector<PairBatch> batches;
    for (int64_t a = 0; a < count;) {
        int64_t b = a + 1;  // at least one circle, even if it alone exceeds cap
        while (b < count && first_pair(b + 1) - first_pair(a) <= cap) ++b;
        batches.push_back(PairBatch{a, b, first_pair(a), first_pair(b) - first_pair(a)});
        a = b;
    }
    return batches;
}

void PairSpeculation::note_total(unsigned long long pairs) {
    const bool had_last = capacity_ > 0 || last_total_ > 0;  // a frame binned before this one
    const unsigned long long growth = had_last && pairs > last_total_ ? pairs - last_total_ : 0;
    last_total_ = pairs;
    unsigned long long next = pairs + 2 * growth + pairs / 64 + 1024;
    if (mode_ == Speculation::Tight) next = pairs;
    const bool fits = next > 0 && next <= batch_limit_;
    capacity_ = mode_ != Speculation::Off && fits ? next : 0;
}

}  // namespace cr
