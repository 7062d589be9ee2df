// The CUDA renderer's host side: it owns the circles' and the image's
// buffers (kernels/frame_state.h) and a binning path (kernels/binning.h),
// queues the frame's stages on one stream in frame order (clear -> advance
// -> pack -> bin -> shade; only the recorded order of a frame's first
// shading pass runs on a second stream, forked at the end of the frame
// before, launched once the binning is queued and joined before shade; a
// later pass's order runs on the frame's stream), and times each with
// cudaEvents (kernels/stage_timeline.h). Which binning path and culling a
// scene takes is decided at setup by plan_binning (kernels/bin_plan.h, host
// code tested on the CPU); the path object owns its stages' buffers, its
// speculation and its batches, and hands back per-tile lists one shading
// pass at a time. The options are checked before the renderer is built
// (kernels/cuda_options.cpp). The kernels live one stage a file (clear.cu,
// advance.cu, bin.cu and bin_count.cu, shade_*.cu); this file only orders
// them. The image stays on the device until image().
#include <cuda_profiler_api.h>

#include <dlfcn.h>

#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/bin_plan.h"
#include "kernels/binning.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_renderer.h"
#include "kernels/frame_state.h"
#include "kernels/stage_timeline.h"
#include "render/core/numbers.h"

namespace cr {

namespace {

class CudaRenderer final : public Renderer {
public:
    CudaRenderer(KernelKind kind, CudaOptions options)
        : kind_(kind), opt_(options), timeline_(options.sync_stages) {
        tally_.limit = options.memory_limit;
    }

    std::string name() const override {
        switch (kind_) {
            case KernelKind::Naive: return "naive";
            case KernelKind::Tiled: return "tiled";
            case KernelKind::Persistent: return "persistent";
            case KernelKind::FrontToBack: return "ftb";
            default: return "unordered";
        }
    }

    void setup(const Scene& s, int w, int h) override {
        require_valid_image_size(w, h);
        if (s.count() > static_cast<size_t>(INT32_MAX))
            throw std::invalid_argument("scenes are limited to 2^31-1 circles");
        cudaStream_t st = stream_.get();
        join_order();  // a frame that threw may have left its order running beside the stream
        CR_CUDA(cudaStreamSynchronize(st));
        CR_CUDA(cudaStreamSynchronize(recorded_.side.get()));  // and one whose join was never recorded
        recorded_.forked = recorded_.ahead = false;  // nothing of the last scene's frames is waited for again
        binning_.reset();  // the last scene's binning buffers go before this one's are sized
        binned_since_setup_ = false;
        width_ = w;
        height_ = h;
        frame_ = 0;
        grid_ = make_tile_grid(w, h, opt_.tile_size == 8 ? 8 : 16);
        bounds_ = value_bounds(s);
        plan_ = plan_binning(s, grid_, kind_, opt_, count_tile_limit(), bounds_.valid,
                             opt_.staged_place != Choice::Off ? staged_place_tile_limit() : count_tile_limit());
        bin_grid_ = coarse_grid(grid_, plan_.coarse);
        circles_.upload(s, &tally_, st, plan_.records, lists_by_bin_compact() ? &bin_grid_ : nullptr);
        image_.reserve("image", size_t(w) * h, &tally_);
        if (binned_kind()) binning_ = make_binning_path(binning_setup(), BinContext{st, &timeline_, &tally_});
        // the recorded order (plan_recorded_order): persistent unless order=off; tiled with the early stop, with
        // order=on, and by default on counted lists
        if (plan_recorded_order(plan_, kind_, opt_.order) && grid_.tile_count() < (1 << 20))
            recorded_.reserve(grid_.tile_count(), &tally_, st);
        else
            recorded_.release();
        if (kind_ == KernelKind::Persistent) {
            order_.reserve(grid_.tile_count(), &tally_, st);
            for (bool binned : {false, true})
                persistent_blocks_[binned] = persistent_block_count(grid_.tile, opt_.rows_per_thread, circles_.shade,
                                                                    plan_shade_bits(plan_, binned));
        }
        host_pin_.release();
        host_image_ = Image();
        timeline_.reset();
        clear_pending_ = false;
        geom_stale_ = true;
    }

    /// The tiled kernels start the next shading launch from the background
    /// instead (clear_pending_): the clear costs no launch and no pass over
    /// the image. Anything that reads the image first runs the clear.
    /// A deferred clear queues no GPU work: its stage is listed with 0 ms
    /// and records no event (StageTimeline::mark_empty).
    void clear() override {
        timeline_.reset();
        if (binned_kind()) {
            timeline_.mark_empty("clear", "Clear", stream_.get());
            clear_pending_ = true;
        } else {
            timeline_.mark("clear", "Clear", stream_.get());
            launch_clear(image_.get(), width_, height_, circles_.shade, stream_.get());
        }
    }

    /// A static scene's advance queues no GPU work: 0 ms, no event.
    void advance() override {
        const CircleArrays soa = circles_.view().soa;
        const int motion = static_cast<int>(circles_.motion);
        if (advance_queues_work(soa, motion)) timeline_.mark("advance", "Advance", stream_.get());
        else timeline_.mark_empty("advance", "Advance", stream_.get());
        launch_advance(soa, motion, stream_.get());
        if (circles_.motion != Motion::None) geom_stale_ = true;
        ++frame_;
    }

    /// pack -> bin -> shade: the binning path hands back the frame's lists
    /// one shading pass at a time (batches, or a redo of a speculative pass
    /// that had too little room).
    void render() override {
        const DeviceCircles c = circles_.view();
        try {
            pack(c);
            if (!binned_kind()) {
                shade_per_pixel(c);
            } else {
                if (!binning_) throw std::logic_error(name() + ": render() without a successful setup()");
                ShadePass pass = binning_->first_pass(c);
                order_beside_binning();  // the binning is issued: these calls overlap it on the GPU
                do shade(c, pass);
                while (binning_->next_pass(c, pass));
                clear_pending_ = false;  // the frame's last pass wrote the background
                binned_since_setup_ = true;
            }
        } catch (...) {
            join_order();  // the stream waits for the order launched beside binning: none is left running
            recorded_.forked = false;  // no fork of this frame: the next frame takes bin.order on its stream
            throw;
        }
        join_order();  // a safeguard: the first pass always takes the order launched beside binning
        timeline_.close(stream_.get());
        fork_order();  // after the frame's shading, which the next frame's order reads
    }

    const Image& image() override {
        cudaStream_t s = stream_.get();
        if (host_image_.width != width_ || host_image_.height != height_) {
            host_pin_.release();
            host_image_ = Image(width_, height_);
            host_pin_.pin(host_image_.data.data(), host_image_.data.size() * sizeof(float));
        }
        timeline_.mark("download", "", s);
        run_pending_clear();  // a clear still deferred counts in the download
        CR_CUDA(cudaMemcpyAsync(host_image_.data.data(), image_.get(), size_t(width_) * height_ * sizeof(float4),
                                cudaMemcpyDeviceToHost, s));
        timeline_.close(s);
        CR_CUDA(cudaStreamSynchronize(s));
        return host_image_;
    }

    std::vector<StageTime> timings() override { return timeline_.read(); }
    int frame() const override { return frame_; }
    void synchronize() override { CR_CUDA(cudaStreamSynchronize(stream_.get())); }
    void profiler_range(bool on) override {
        synchronize();
        CR_CUDA(on ? cudaProfilerStart() : cudaProfilerStop());
    }
    GpuImage gpu_image() const override {
        run_pending_clear();
        return {reinterpret_cast<const float*>(image_.get()), stream_.get()};
    }
    size_t peak_device_bytes() const override { return tally_.peak; }
    bool is_incorrect_by_design() const override { return kind_ == KernelKind::Unordered; }

    WorkCounts work() override {
        WorkCounts w;
        if (!binned_kind()) {
            w.coverage_tests = circles_.count * static_cast<long long>(width_) * height_;
            return w;
        }
        if (!binned_since_setup_) return w;  // no frame since setup: nothing was binned yet
        w.circle_tile_pairs = binning_->pairs();
        w.binning_redos = binning_->redos();
        w.path = binning_->path();
        w.tile_order = tile_order_;
        // an upper bound: every tile of a bin tests the bin's list (after
        // bin.split each tile tests only its own, fewer)
        const long long per_pair = binning_->binned() ? static_cast<long long>(plan_.coarse) * plan_.coarse : 1;
        w.coverage_tests = w.circle_tile_pairs * per_pair * grid_.tile * grid_.tile;
        return w;
    }

    TileLoads tile_loads() override {
        if (!binned_kind()) return {};
        TileLoads t{grid_.tiles_x, grid_.tiles_y, grid_.tile, std::vector<int>(grid_.tile_count(), 0)};
        if (!binned_since_setup_) return t;  // no frame since setup: no lists to read yet
        CR_CUDA(cudaStreamSynchronize(stream_.get()));
        binning_->tile_loads(circles_.view(), t.loads);
        return t;
    }

private:
    bool binned_kind() const {
        return kind_ == KernelKind::Tiled || kind_ == KernelKind::Persistent || kind_ == KernelKind::FrontToBack;
    }

    /// Whether this setup's lists come from bin.compact (make_binning_path's
    /// choice: the direct path goes first), so bin.pack writes the circles'
    /// bin boxes (DeviceCircles::bin_box) for it, and only then.
    bool lists_by_bin_compact() const { return binned_kind() && !plan_.direct && plan_.compact; }

    /// The deferred clear, for whoever reads the image before a shading
    /// launch has written the background.
    void run_pending_clear() const {
        if (!clear_pending_) return;
        launch_clear(image_.get(), width_, height_, circles_.shade, stream_.get());
        clear_pending_ = false;
    }

    /// naive and unordered: one shading kernel over the packed circles.
    void shade_per_pixel(const DeviceCircles& c) {
        cudaStream_t s = stream_.get();
        timeline_.mark("shade", "Render", s);
        if (kind_ == KernelKind::Naive) launch_shade_naive(c, image_.get(), width_, height_, s);
        else launch_shade_unordered(c, image_.get(), width_, height_, s);
    }

    /// What the binning path needs to know of the plan, the grids and the options.
    BinningSetup binning_setup() const {
        BinningSetup b;
        b.plan = plan_;
        b.tiles = grid_;
        b.bins = bin_grid_;
        b.circles = circles_.count;
        b.max_pairs_per_batch = opt_.max_pairs_per_batch;
        b.speculation = opt_.speculation;
        b.fill_per_thread = opt_.fill_per_thread;
        b.count_chunks_per_sm = opt_.count_chunks_per_sm;
        b.staged_place = plan_.staged_place;
        b.front_to_back = kind_ == KernelKind::FrontToBack;
        return b;
    }

    /// Stage bin.pack: the circles' packed geometry, rebuilt only when they
    /// moved (static scenes pack once, after setup).
    void pack(const DeviceCircles& c) {
        if (!geom_stale_) return;
        timeline_.mark("bin.pack", "Render", stream_.get());
        launch_pack_geometry(c, stream_.get());
        geom_stale_ = false;
    }

    /// Stage shade of one pass (ftb's batches: `first`/`last`; persistent:
    /// bin.order first). A speculative pass leaves the deferred clear
    /// pending until the path has confirmed it (render()).
    void shade(const DeviceCircles& c, const ShadePass& pass) {
        cudaStream_t s = stream_.get();
        const TileLists& lists = pass.lists;
        const bool persistent = kind_ == KernelKind::Persistent;
        const int bits = plan_shade_bits(plan_, lists.list != nullptr);
        const bool recorded = records_order(bits, lists.list != nullptr);
        // the persistent kernel keeps bin.order by list length on its first frame (nothing recorded yet) and,
        // without the early stop, on every pass that did not take the order beside binning (a batch after the
        // first, a redo, CR_SYNC_STAGES): its own lists, not the lengths of the pass before
        const bool stale = !plan_.coalesce && !recorded_.ahead;
        const bool by_length = persistent && lists.list && (!(recorded && recorded_.recorded) || stale);
        const bool beside = !by_length && recorded && recorded_.ahead;
        const int* order = by_length ? heavy_first_order(lists)
                           : recorded ? (beside ? wait_for_order() : recorded_order())
                                      : nullptr;
        tile_order_ = !order ? "tile order"
                      : by_length ? "list lengths, sorted after binning"
                      : beside ? "recorded work, sorted beside binning"
                               : "recorded work, sorted after binning";
        timeline_.mark("shade", "Render", s);
        if (kind_ == KernelKind::FrontToBack) {
            if (!(pass.first && pass.last)) {
                ftb_acc_.reserve("shade.ftb_state", size_t(width_) * height_, &tally_);
                run_pending_clear();  // every batch's launch adds to the image's alpha
            }
            FtbLaunch l;
            l.c = c;
            l.lists = lists;
            l.g = grid_;
            l.image = image_.get();
            l.acc = ftb_acc_.get();
            l.first = pass.first;
            l.last = pass.last;
            l.from_background = clear_pending_;
            l.cull = lists.list ? plan_cull_bits(plan_) : 0;
            launch_shade_ftb(l, s);
        } else {
            if (persistent) CR_CUDA(cudaMemsetAsync(order_.counter.get(), 0, sizeof(unsigned int), s));
            const bool binned = lists.list != nullptr;
            if ((bits & kShadeRecords) != 0 && c.rec == nullptr)
                throw std::logic_error("shade: the plan gathers circle records that setup did not allocate");
            StopParams stop{bounds_, static_cast<float>(plan_.window_per_candidate), std::ldexp(1.f, -opt_.walk_gap_bits)};
            if (recorded) stop.tile_work = recorded_.work.get();  // this frame's work, the next frame's order
            recorded_.recorded = recorded_.recorded || recorded;
            ShadeLaunch l{c, lists, grid_, image_.get(), clear_pending_, persistent, order_.counter.get(), order,
                          persistent_blocks_[binned], stop};
            launch_shade_tiled(l, opt_.rows_per_thread, opt_.shade_variant | bits, s);
        }
        if (!pass.speculative) clear_pending_ = false;
    }

    /// True when this launch (template bits `bits`, on binned lists or not)
    /// records its tiles' work and takes the recorded order: the early
    /// stop's kernels (tiled and persistent), and the persistent kernel on
    /// binned lists without it (the work is the list length) where one
    /// block sorts the grid (launch_work_order; larger grids keep bin.order's
    /// device-wide sort of their lists: the four groups measured slower
    /// there); the buffers exist only where plan_recorded_order says so.
    bool records_order(int bits, bool binned) const {
        const int tiles = grid_.tile_count();
        const bool lengths = kind_ == KernelKind::Persistent && binned && tiles <= kOrderBlockTiles;
        const bool records = (bits & kShadeCoalesce) != 0 || lengths;
        const size_t n = static_cast<size_t>(tiles);
        return records && recorded_.work.size() >= n && recorded_.order.size() >= n;
    }

    /// Stage "bin.order" of the early stop (tiled and persistent) on the
    /// frame's stream: the tiles by their work in the frame before, longest
    /// first (launch_order_of_work).
    const int* recorded_order() {
        timeline_.mark("bin.order", "Render", stream_.get());
        launch_order_of_work(stream_.get());
        return recorded_.order.get();
    }

    /// The order from the work recorded in the frame before, on stream `s`:
    /// the early stop's four groups (launch_recorded_order); the persistent
    /// kernel without it, which records list lengths (records_order: grids
    /// of at most kOrderBlockTiles), the full sort by them (launch_work_order).
    void launch_order_of_work(cudaStream_t s) {
        const int tiles = grid_.tile_count();
        if (plan_.coalesce)
            launch_recorded_order(recorded_.work.get(), tiles, recorded_.order.get(), s);
        else
            launch_work_order(recorded_.work.get(), tiles, recorded_.order.get(), s);
    }

    /// Marks the end of this frame's shading on its stream (`fork`) where
    /// the next frame's first pass takes the recorded order beside binning
    /// (`forked`): the kernels that record their work (records_order) on
    /// binned lists (not the direct path), once a frame has recorded it
    /// (the persistent kernel's first frame orders by list length), and not
    /// with CR_SYNC_STAGES (each stage is checked on the frame's stream
    /// alone). None of that changes before the next frame but in setup(),
    /// which forgets the fork. The next frame's order reads only the work recorded up to the
    /// fork. Recorded after the frame's last event, while the GPU still
    /// shades, so it adds no host time in front of any stage.
    void fork_order() {
        recorded_.forked = false;
        if (!binned_kind() || !binning_ || !binning_->binned() || opt_.sync_stages) return;
        if (!records_order(plan_shade_bits(plan_, true), true)) return;
        if (kind_ == KernelKind::Persistent && !recorded_.recorded) return;
        CR_CUDA(cudaEventRecord(recorded_.fork.get(), stream_.get()));
        recorded_.forked = true;
    }

    /// The recorded order of this frame's first pass, launched on a second
    /// stream (RecordedOrderBuffers::side) after the frame's binning is
    /// issued and after the fork of the frame before (fork_order decided
    /// whether there is one; not after setup or a frame that threw): it
    /// reads only that frame's work, so it runs beside bin.compact or
    /// bin.count..bin.split instead of after them, and its three calls are
    /// made while the GPU bins instead of in front of the first binning
    /// launch (launched before binning, its four calls showed up as
    /// 0.005-0.011 ms of "advance": docs/PERFORMANCE.md). Where the binning
    /// waits for the host (the pair total), the order overlaps only what is
    /// queued after.
    void order_beside_binning() {
        if (!std::exchange(recorded_.forked, false)) return;
        CR_CUDA(cudaStreamWaitEvent(recorded_.side.get(), recorded_.fork.get(), 0));
        launch_order_of_work(recorded_.side.get());
        CR_CUDA(cudaEventRecord(recorded_.join.get(), recorded_.side.get()));
        recorded_.ahead = true;
    }

    /// Stage "bin.order" of a frame whose order was launched beside binning:
    /// the frame's stream waits for it (the stage's time is what is left of it
    /// once binning is done).
    const int* wait_for_order() {
        timeline_.mark("bin.order", "Render", stream_.get());
        CR_CUDA(cudaStreamWaitEvent(stream_.get(), recorded_.join.get(), 0));
        recorded_.ahead = false;
        return recorded_.order.get();
    }

    /// The frame's stream waits for an order launched beside binning that no pass took
    /// (a frame that threw, or a safeguard at its end), so nothing of the
    /// frame runs beside the stream afterwards. Does not throw (called while
    /// an exception is in flight): a failed wait is left to the stream's
    /// next checked call.
    void join_order() noexcept {
        if (!recorded_.ahead) return;
        cudaStreamWaitEvent(stream_.get(), recorded_.join.get(), 0);
        recorded_.ahead = false;
    }

    /// Stage "bin.order" (persistent): tile ids sorted by load, heaviest first.
    const int* heavy_first_order(const TileLists& lists) {
        if (opt_.order == Choice::Off) return nullptr;  // row-major tile order
        timeline_.mark("bin.order", "Render", stream_.get());
        return order_.heavy_first(lists, grid_, stream_.get());
    }

    KernelKind kind_;
    CudaOptions opt_;
    DeviceMemoryTally tally_;
    CudaStream stream_;
    StageTimeline timeline_;
    CircleBuffers circles_;
    std::unique_ptr<BinningPath> binning_;  ///< null for naive and unordered (they do not bin)
    TileOrderBuffers order_;
    RecordedOrderBuffers recorded_;  ///< the recorded order (records_order)
    const char* tile_order_ = "";    ///< how the last pass handed its tiles out (WorkCounts::tile_order)
    DeviceBuffer<float4> image_;
    DeviceBuffer<float4> ftb_acc_;  ///< ftb: (C, T) per pixel between the batches of a frame
    Image host_image_;
    HostRegistration host_pin_;  ///< host_image_'s memory, page-locked; declared after it: released first
    int width_ = 0, height_ = 0, frame_ = 0;
    ValueBounds bounds_{};  ///< every value a pixel of the scene can hold (the early stop's trajectories)
    int persistent_blocks_[2] = {0, 0};  ///< the persistent kernel's grid: over unbinned lists, over binned ones
    TileGrid grid_{};
    TileGrid bin_grid_{};  ///< the grid binning lists circles on: bins of plan_.coarse x plan_.coarse tiles
    BinPlan plan_{};
    bool geom_stale_ = true;                ///< circles moved (or were uploaded) since bin.pack
    bool binned_since_setup_ = false;       ///< binning_ binned a frame since setup (its lists and counts are there)
    mutable bool clear_pending_ = false;    ///< clear() deferred into the next shading launch
};

/// True when the NVIDIA driver's library can be loaded: then "insufficient
/// driver" means a driver too old for this build, not a missing one.
bool driver_library_present() {
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (lib) dlclose(lib);
    return lib != nullptr;
}

}  // namespace

bool cuda_device_usable(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    cudaGetLastError();  // a failed query leaves no sticky error; clear it anyway
    if (e == cudaSuccess && n > 0) return true;
    if (why) {
        if (e == cudaErrorInsufficientDriver && driver_library_present())
            *why = "the NVIDIA driver is too old for this CUDA " + std::to_string(CUDART_VERSION / 1000) +
                   " build (" + cudaGetErrorString(e) + ")";
        else
            *why = "no NVIDIA GPU or driver found";
    }
    return false;
}

std::string cuda_device_description() {
    std::string why;
    if (!cuda_device_usable(&why)) return why;
    cudaDeviceProp p{};
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) return "CUDA device";
    char buf[256];
    std::snprintf(buf, sizeof buf, "%.200s (sm_%d%d, %d SMs, %.0f GiB)", p.name, p.major, p.minor,
                  p.multiProcessorCount, p.totalGlobalMem / 1073741824.0);
    return buf;
}

int cuda_device_count() {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    cudaGetLastError();
    return e == cudaSuccess ? n : 0;
}

unsigned long long cuda_device_total_bytes() {
    if (!cuda_device_usable()) return 0;
    cudaDeviceProp p{};
    int dev = 0;
    cudaGetDevice(&dev);
    return cudaGetDeviceProperties(&p, dev) == cudaSuccess ? p.totalGlobalMem : 0;
}

std::unique_ptr<Renderer> make_cuda_renderer(KernelKind kind, CudaOptions options) {
    validate_cuda_options(kind, options);
    std::string why;
    if (!cuda_device_usable(&why)) throw NoCudaDeviceError(why);
    return std::make_unique<CudaRenderer>(kind, options);
}

}  // namespace cr
