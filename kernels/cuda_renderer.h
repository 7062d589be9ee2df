// The CUDA renderers, as the rest of the project sees them: a factory and
// its options. No CUDA header is needed to include this file; the renderer
// class itself lives in kernels/cuda_renderer.cu.
//
// Kernels (see docs/KERNELS.md): naive, tiled, persistent, and the
// deliberately incorrect `unordered` demo of the course's starter code.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "render/core/renderer.h"

namespace cr {

/// Which shading kernel a CUDA renderer runs.
enum class KernelKind {
    Naive,       ///< one thread per pixel walks every circle
    Tiled,       ///< one block per tile, binned circle lists, block scan
    Persistent,  ///< tiled, with resident blocks pulling tiles from a counter
    Unordered,   ///< the starter code's racy one-thread-per-circle kernel (wrong on purpose)
    FrontToBack, ///< tiled, blending front to back with early termination (within 1e-5 of cpuref)
};

/// A switch that is on, off, or decided per scene (CudaOptions::row_cull,
/// CudaOptions::strips and CudaOptions::split).
enum class Choice { Auto, On, Off };

/// Whether `c` is on, where Auto takes `automatic`.
inline bool chosen(Choice c, bool automatic) { return c == Choice::On || (c == Choice::Auto && automatic); }

/// How binning sizes its pair buffers (CudaOptions::speculation).
enum class Speculation { Off, Slack, Tight };

/// The guessed start's window (CudaOptions::guess_hits' default): enough of
/// a tile's list's end for this many circles covering a pixel, at the
/// scene's mean coverage. Two trajectories of a flat scene meet after about
/// 28 (docs/PERFORMANCE.md); 45 is the compromise
/// scripts/probes/tile_walk_model.cpp suggests across rand100k, rand1M,
/// biglittle and littlebig (rand100k alone would take 40, rand1M 60; a CPU
/// model, not yet measured on a GPU).
constexpr int kGuessHits = 45;

/// Options of the tiled kernels (defaults are the measured best).
struct CudaOptions {
    int tile_size = 16;       ///< tile edge in pixels (8 or 16)
    int rows_per_thread = 4;  ///< pixel rows each shading thread owns (16x16 tiles: 4 or 8)
    /// Scenes with at most this many circle x tile tests per frame skip
    /// binning and let each block scan every circle (rgb, rgby, hypnosis).
    long long direct_limit = 1ll << 18;
    /// Most circle-tile pairs binned at once; more are drawn in batches of
    /// circles (in input order), which bounds device memory.
    long long max_pairs_per_batch = 1ll << 26;
    /// Device memory this renderer may hold, in bytes (0: what the GPU has).
    /// Past it, allocations fail as if the GPU were full (for tests).
    size_t memory_limit = 0;
    /// Synchronize after every stage, so an asynchronous CUDA fault names the
    /// stage it happened in (CR_SYNC_STAGES=1; slower, for debugging).
    bool sync_stages = false;
    /// Teaching variants (docs/KERNELS.md, "From lecture to code"), same
    /// images: the earlier one-thread-per-circle bin.fill (fill=thread), and
    /// for the tiled 16x16, 4-row kernel the shared list as two arrays
    /// (list=split, kShadeSplitList), warp-uniform culling (cull=warp,
    /// kShadeWarpCull) or compaction with the general shuffle scan
    /// (scan=shuffle, kShadeShuffleScan); 0 is the default kernel.
    bool fill_per_thread = false;
    int shade_variant = 0;
    /// Bin each frame with the last frame's pair total plus slack as the
    /// capacity, without waiting for this frame's total on the host
    /// (kernels/bin.cu, "Speculative capacity"). CR_CUDA_OPTIONS spec=off
    /// waits instead; spec=tight leaves no slack, so any frame with more
    /// pairs than the last is binned twice (tests of that path).
    Speculation speculation = Speculation::Slack;
    /// Binning lists circles per bin of coarse x coarse tiles (1, 2 or 4);
    /// 0 picks per scene from the circles' sizes (CR_CUDA_OPTIONS coarse=N).
    int coarse = 0;
    /// Scenes with circles x bins at most compact_limit are binned by
    /// bin.compact (one block per bin, no sort) unless allow_compact is
    /// false (CR_CUDA_OPTIONS bins=sort).
    bool allow_compact = true;
    /// bin.compact's limit on circles x bins (its time and its lists' size
    /// grow with it; CR_CUDA_OPTIONS compact=N). Measured: rand10k's 2.6 M
    /// take 0.017 ms, rand100k's 25.6 M 0.108 ms, slower than sorting.
    long long compact_limit = 1ll << 23;
    /// Row culling in the 16x16, 4-row kernels (tiled, persistent, ftb): a
    /// warp skips a listed circle that covers none of its 8 pixel rows
    /// (cheap with the per-circle row mask; worth it for small circles).
    /// Auto: on for the exact kernels when circles span few tiles
    /// (kRowCullTiles) and strip masks are off. CR_CUDA_OPTIONS
    /// rowcull=auto|on|off. These culling switches only act where the
    /// kernel has that shape (16x16 tiles, 4 rows a thread, no teaching
    /// variant) and the frame is binned; elsewhere on is ignored, as
    /// WorkCounts::path shows. strips=on wins over rowcull=on.
    Choice row_cull = Choice::Auto;
    /// Strip masks in the 16x16, 4-row kernels (tiled, persistent, ftb):
    /// each chunk's small hits are marked, one bit each, on the 64-bit masks
    /// of the thread strips (1 column x 4 rows) their box overlaps, and a
    /// thread blends only the hits on its mask (the rest of the chunk is
    /// skipped without being looked at; tile_list.cuh, StripMasks). Auto: on
    /// when circles span few tiles (kRowCullTiles), where it replaces row
    /// culling (unless rowcull=on). CR_CUDA_OPTIONS strips=auto|on|off.
    Choice strips = Choice::Auto;
    /// Two-level binning: after listing circles in bins of 2x2 or 4x4
    /// tiles (counting sort or sorting stages), stage bin.split lists each tile's circles (one block per bin,
    /// no second sort). Auto: for tiled and persistent, and for ftb on snow
    /// scenes. On is ignored where there is nothing to split (single-tile
    /// bins, bin.compact) or more than kSplitBinIds bins (the masks' keys
    /// hold a 16-bit bin id). CR_CUDA_OPTIONS split=auto|on|off.
    Choice split = Choice::Auto;
    /// Binning by a stable counting sort (kernels/bin_count.cu: per-chunk
    /// histograms of the bins, one scan, a placing pass; no radix sort)
    /// instead of the sorting stages, on the bins plan_bins chose: single
    /// tiles, or bins of 4x4 tiles that bin.split then splits (from the
    /// (circle, tile mask) pairs bin.place writes). Auto: on 4x4 bins for
    /// every scene the sorting stages would bin; on single tiles for scenes
    /// whose circles overlap fewer than kCountTiles tiles on average. Auto
    /// and On need at most count_tile_limit() bins (8192, fewer on GPUs
    /// with less shared memory a block: kernels/stages.h) and a scene
    /// bin.compact does not take; elsewhere On is ignored, as
    /// WorkCounts::path shows. A frame with more entries than one batch
    /// (max_pairs_per_batch; divided by the 16 tiles of a bin when bin.split
    /// follows) takes the sorting stages in batches.
    /// CR_CUDA_OPTIONS count=auto|on|off.
    Choice counting = Choice::Auto;
    /// The counting sort's chunks (thread blocks) per multiprocessor: 3 is
    /// one wave of bin.place on the H200 (its shared memory fits 3 blocks an
    /// SM with 4096 tiles); more shorten the tail of uneven chunks, fewer
    /// keep the chunks x tiles matrix small (CR_CUDA_OPTIONS chunks=1..32).
    int count_chunks_per_sm = 3;
    /// The persistent kernel's tile order: heaviest tiles first (stage
    /// bin.order, from the binned lists' lengths), or Off: row-major tile
    /// order with no bin.order stage. Auto and On: heaviest first. With the
    /// early stop, the persistent kernel (Auto and On) and the tiled kernel
    /// (On, and Auto on counted lists) order the tiles by their work in the
    /// frame before instead, longest first (stage bin.order,
    /// launch_recorded_order; plan_recorded_order); Off: row-major. Launched
    /// beside binning on a second stream (order_beside_binning), the order
    /// costs only the stream's wait for it and, beside bin.compact, its
    /// block (0.002-0.005 ms): the tiled kernel with it was faster on
    /// rand1M (-8%) and rand100k (-3%), both on counted lists, and on
    /// biglittle (-16%), but slower on littlebig (+7%, whose shading does
    /// not gain from the order), both on bin.compact's lists, where Auto
    /// keeps tile order (H100, 2026-12-05, docs/PERFORMANCE.md).
    /// CR_CUDA_OPTIONS order=auto|on|off.
    Choice order = Choice::Auto;
    /// Exact early stopping by coalescence in the tiled and persistent
    /// kernels (16x16 tiles, 4 rows a thread, no teaching variant): each
    /// tile's list is walked from its end to find where two trajectories
    /// will meet, and shaded from there (kernels/shade_tiled.cu). The RGB
    /// floats are cpuref's, bit for bit; alpha is written as 1, as by
    /// every pass of these kernels. Auto: on where lists are long
    /// (kCoalesceDepth).
    /// CR_CUDA_OPTIONS stop=auto|on|off.
    Choice coalesce = Choice::Auto;
    /// Where the early stop starts a tile (when it stops early): Off, the
    /// kernel walks the tile's list back until every pixel's two
    /// trajectories are sure to meet; On, it skips that walk and starts a
    /// window of the list's end long enough for guess_hits covering circles a
    /// pixel on the scene's mean coverage, blends one trajectory in a warp
    /// whose pixels met, and doubles the window where one did not
    /// (kernels/shade_tiled.cu, "Guessed start"). Auto: the guess on the
    /// counted and sorted paths, the walk on bin.compact's (measured on the
    /// H200, 2026-12-05: rand100k 0.123 -> 0.109 ms, rand1M 0.258 -> 0.235;
    /// biglittle 0.098 -> 0.123, littlebig 0.081 -> 0.105). CR_CUDA_OPTIONS
    /// start=auto|walk|guess.
    Choice guess_start = Choice::Auto;
    /// The guessed start's window in covering circles a pixel, on average
    /// (kGuessHits; CR_CUDA_OPTIONS window=1..1000). Small values force
    /// second tries (the GPU tests' use); the bench sweeps it.
    int guess_hits = kGuessHits;
    /// The walk back stops where every pixel's gap between its two
    /// trajectories is below 2^-walk_gap_bits (32: the trajectories meet in
    /// all but rare pixels; CR_CUDA_OPTIONS gap=1..32). Small values force
    /// second tries (the GPU tests' use); the images stay exact.
    int walk_gap_bits = 32;
    /// Which pixels a shading thread of the exact kernels owns where they
    /// neither cull nor stop early: false, a column strip of 4 rows; true,
    /// the quad layout (2 x 2 pixels 8 columns and 4 rows apart), so the
    /// pixels of one row index of a warp are an 8 x 4 block and a snow
    /// flake's expensive math runs for fewer partly covered warps
    /// (kernels/shade_tiled.cu, "Who owns which pixel"). The images are the
    /// same. Auto: quads on snow scenes (with the reciprocal, snowsingle
    /// 0.442 -> 0.338 ms on the H200, 2026-12-05), strips elsewhere.
    /// CR_CUDA_OPTIONS layout=auto|strips|quads (Off: strips, On: quads).
    Choice quad_layout = Choice::Auto;
    /// Snow's t = sqrt(d2) / r in the exact kernels that do not stop early:
    /// Off, the IEEE division; On, from the radius's reciprocal
    /// (div_by_reciprocal: the same float in fewer instructions). Auto: with
    /// the quad layout, as measured. CR_CUDA_OPTIONS snowdiv=auto|ieee|recip.
    Choice snow_reciprocal = Choice::Auto;
    /// How the exact kernels' shading gathers a listed circle on flat
    /// scenes: false, its geometry and its color from two arrays (two DRAM
    /// sectors when the circles are not in L2); true, from one 32-byte
    /// record of both (DeviceCircles::rec, filled by bin.pack: 32 more bytes
    /// a circle). The same values, so the same images. CR_CUDA_OPTIONS
    /// gather=arrays|records.
    bool circle_records = false;
    /// How the counting sort's bin.place writes its entries: Off, each
    /// window straight to the tiles' lists (a warp's stores to about as many
    /// tiles as it has entries); On, staged per batch in shared memory in
    /// tile order and written out from consecutive slots
    /// (kernels/bin_count.cu, place_round_staged). The same lists. Auto:
    /// staged for bins that bin.split splits next in scenes of at least
    /// kStagedPlaceCircles circles (measured on the H100, 2026-12-05:
    /// rand1M's bin.place 0.064 -> 0.056 ms; rand100k, snowsingle and
    /// micro2M, whose chunks place one round or fewer, slower).
    /// CR_CUDA_OPTIONS place=auto|direct|staged.
    Choice staged_place = Choice::Auto;
};

/// plan_bins's threshold: from this mean number of tiles a circle's
/// bounding box overlaps, circles are binned per 4x4 tiles (then split into
/// per-tile lists for the exact kernels). Measured on the H200: rand1M (6
/// tiles a circle), rand100k (56) and biglittle (750) are fastest with 4x4
/// bins, micro2M (1.3) with single tiles.
constexpr double kCoarseTiles = 4.0;
/// The counting sort's threshold on single tiles (CudaOptions::counting):
/// scenes whose circles overlap fewer tiles than this on average (micro2M,
/// 1.3). Measured on the H200: rand1M (6 tiles a circle) and snowsingle
/// (7.3) are faster in 4x4-tile bins, counted and split
/// (docs/PERFORMANCE.md, steps 24 and 26).
constexpr double kCountTiles = 4.0;
/// Strip masks, or row culling where strip masks are off (Choice::Auto),
/// are on for scenes whose circles overlap fewer tiles than this on
/// average (micro2M: 1.3).
constexpr double kRowCullTiles = 2.0;
/// Exact early stopping (BinPlan::coalesce, Choice::Auto) is on for flat
/// scenes whose pixels are covered by at least this many circles on average
/// (mean_coverage): with alpha .5 the trajectories meet after about 28
/// blends, and the walk back to find where costs a pass of its own; measured
/// on the H200 (docs/PERFORMANCE.md), rand10k (87.5) was slower with it
/// (0.073 -> 0.092 ms), rand1M (422) 2.2 times faster. Snow's
/// faint flakes need far more blends; it stays off there unless stop=on.
constexpr double kCoalesceDepth = 200.0;
/// With the early stop, bin.split is skipped where circles overlap at least
/// this many tiles on average (a 4x4 bin's worth: most circles of a bin's
/// list then touch each of its tiles, and the walk reads only the list's
/// end). Measured on the H200 (2026-12-02): rand100k (55.9 tiles a circle)
/// 0.148 -> 0.128 ms without the split; rand1M (6.1) 0.255 -> 0.348 (its
/// tiles' ends of a bin's list are mostly circles of the bin's other tiles).
constexpr double kStopSplitTiles = 16.0;
/// bin.place stages its entries (CudaOptions::staged_place, Choice::Auto)
/// for split bins in scenes of at least this many circles: about two rounds
/// of 1024 circles for each of the 396 chunks of a 132-SM GPU, where the
/// staging's extra pass overlaps the other blocks' rounds. Measured on the
/// H100 (2026-12-05): rand1M (1 M circles) bin.place 0.064 -> 0.056 ms;
/// snowsingle (100,000, split) 0.028 -> 0.034.
constexpr double kStagedPlaceCircles = 800000.0;

/// CudaOptions::shade_variant values (bits of the tiled kernel's template).
constexpr int kShadeSplitList = 1, kShadeWarpCull = 2, kShadeShuffleScan = 4;
/// Not teaching variants: row culling (CudaOptions::row_cull) and strip
/// masks (CudaOptions::strips).
constexpr int kShadeRowCull = 8, kShadeStripMask = 16;
/// Exact early stopping by coalescence (BinPlan::coalesce; 16x16 tiles, 4
/// rows a thread, tiled and persistent): kernels/shade_tiled.cu.
constexpr int kShadeCoalesce = 32;
/// With kShadeCoalesce: the guessed start (CudaOptions::guess_start).
constexpr int kShadeGuess = 64;
/// The quad layout (BinPlan::quads): a thread owns pixels (x, y), (x + 8,
/// y), (x, y + 4), (x + 8, y + 4), so a warp's row index covers a block of
/// 8 x 4 pixels instead of two rows of 16 four apart (kernels/shade_tiled.cu,
/// "Who owns which pixel"); without culling and without the early stop.
constexpr int kShadeQuads = 128;
/// Snow's t = sqrt(d2) / r from the circle's reciprocal (BinPlan::
/// snow_reciprocal; div_by_reciprocal, render/core/hd_math.h): the same
/// floats in fewer instructions; without the early stop.
constexpr int kShadeSnowReciprocal = 256;
/// Circle records (BinPlan::records): the shading gathers a listed
/// circle's geometry and color from one 32-byte record
/// (DeviceCircles::rec) instead of two arrays; flat scenes (snow reads no
/// color).
constexpr int kShadeRecords = 512;

/// One key of CR_CUDA_OPTIONS (kernels/cuda_options.cpp holds them all, in
/// one table): its name, the values it takes as the help writes them
/// ("auto|on|off", "1..32", "N>=0"), the kernels it acts on, what it does,
/// and `apply`, which sets it in the options (false: a value it does not take).
struct CudaOptionKey {
    const char* key;
    const char* values;
    const char* acts_on;
    const char* what;
    bool (*apply)(const std::string& value, CudaOptions& o);
};

/// Every CR_CUDA_OPTIONS key, in the order the help lists them.
const std::vector<CudaOptionKey>& cuda_option_keys();

/// Reads developer overrides of `base` from the environment: CR_CUDA_OPTIONS,
/// comma-separated key=value items (e.g. "coarse=1,bins=sort,fill=thread";
/// the keys: cuda_option_keys(), `render --list`, docs/KERNELS.md) for
/// experiments, `render bench` and `render profile`, and CR_SYNC_STAGES=1.
/// Throws std::invalid_argument naming an unknown key or a value it does not take.
CudaOptions cuda_options_from_env(CudaOptions base = {});

/// `base` with the comma-separated key=value items of `text` applied (the
/// CR_CUDA_OPTIONS syntax above). Throws std::invalid_argument naming a bad item.
CudaOptions parse_cuda_options(const std::string& text, CudaOptions base = {});

/// Refuses, before a renderer is built, the options kernel `kind` cannot
/// run (a teaching variant of the tiled kernel on another kernel or shape,
/// tile=8 for ftb, rows=8 with tile=8): throws std::invalid_argument naming
/// the CR_CUDA_OPTIONS item. Options a kernel does not use are accepted.
void validate_cuda_options(KernelKind kind, const CudaOptions& o);

/// The keys as `render --list` prints them: "  key=values  what [kernels]", a line each.
std::string cuda_options_help();

/// The keys as a Markdown table (key=values | acts on | what), as
/// docs/KERNELS.md holds it (a CPU test compares the two).
std::string cuda_options_markdown();

/// Builds a CUDA renderer. Throws std::invalid_argument for options the
/// kernel cannot run (validate_cuda_options), NoCudaDeviceError when no
/// device is usable.
std::unique_ptr<Renderer> make_cuda_renderer(KernelKind kind, CudaOptions options = {});

/// True when a CUDA device is usable; `why` gets a plain reason when not
/// (no driver or GPU, a driver too old for this toolkit, ...).
bool cuda_device_usable(std::string* why = nullptr);

/// "NAME (sm_XY, N SMs, M GiB)" of the current device, or the reason there is none.
std::string cuda_device_description();

/// CUDA devices this process can use (CUDA_VISIBLE_DEVICES applies); 0 without.
int cuda_device_count();

/// The current device's memory in bytes (cudaDeviceProp::totalGlobalMem); 0 without a device.
unsigned long long cuda_device_total_bytes();

/// Converts a renderer's float RGBA device image (GpuImage::pixels) to RGBA8
/// for display (clamped and truncated as the course's writer), on `stream`
/// (GpuImage::stream). dst is a device buffer of width*height uchar4, row 0 =
/// bottom (OpenGL's texture origin); `flip` writes the top row first instead.
/// Throws CudaError when the launch fails.
void present_rgba8(const float* src, unsigned char* dst, int width, int height, bool flip, void* stream);

}  // namespace cr
