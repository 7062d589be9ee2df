// `render bench`: timing comparisons of renderers on scenes.
//
// Method: for each scene and renderer, set up, run one warm-up (inside
// run_frames), then time the course's frame (clear, advance, render) per
// stage over the frames -- cudaEvents for GPU stages, the host clock for
// the synchronous CPU renderers -- and repeat K times from a fresh setup.
// Reported figures are medians over the K repeats of the per-repeat means.
// A renderer that cannot run here (a GPU one without a GPU) is listed as
// unavailable and the exit code is 3.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>

#include "render/cli/commands.h"
#include "render/compare.h"
#include "render/core/numbers.h"
#include "render/core/output_file.h"
#include "render/options.h"
#include "render/renderer_factory.h"
#include "render/scene_source.h"
#include "render/student/student_renderer.h"

namespace cr {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}


/// What a row of the table is: a measurement, a renderer that cannot run
/// here (see BenchPlan::unavailable), or a student's renderer that failed.
enum class RowStatus { Measured, Unavailable, Fault };

/// The status as the table, JSON and CSV write it.
const char* status_name(RowStatus s) {
    return s == RowStatus::Measured ? "measured" : s == RowStatus::Unavailable ? "unavailable" : "fault";
}

struct BenchResult {
    std::string scene, renderer;
    RowStatus status = RowStatus::Measured;  ///< only Measured rows carry the figures below
    std::string timing;     ///< "events" or "course": how this row was timed
    std::string fault;      ///< Fault: what the student's renderer did (StudentFault::what())
    double total_median = 0, total_min = 0, total_max = 0;
    double clear = 0, advance = 0, render = 0;
    std::vector<std::pair<std::string, double>> stages;  // per-stage medians
    std::string check = "-";                             // ok, F or - (not checked)
    double max_error = 0;
    long long pairs = 0, tests = 0, blends = 0;
    size_t peak_bytes = 0;
    std::string path, tile_order;  ///< the last timed frame's WorkCounts::path and ::tile_order (CUDA tiled kernels)
};

/// What a bench run does, decided before anything runs.
struct BenchPlan {
    std::vector<std::string> renderers;
    std::map<std::string, std::string> unavailable;  ///< renderer -> why it cannot run here
    std::string device, date;
    nlohmann::json old;  ///< the --compare result
    /// The student's renderer, built once here and used for every scene: one
    /// build, one worker process, one log of the student's output.
    std::unique_ptr<Renderer> student;
};

/// Reads and validates the --compare file.
nlohmann::json read_compare_file(const BenchArgs& args) {
    nlohmann::json old;
    std::ifstream f(args.compare_path);
    if (!f) throw std::invalid_argument("cannot read --compare file '" + args.compare_path + "'");
    try {
        f >> old;
    } catch (const std::exception& e) {
        throw std::invalid_argument("--compare file '" + args.compare_path + "' is not valid JSON: " + e.what());
    }
    if (!old.is_object() || !old.contains("results") || !old["results"].is_array())
        throw std::invalid_argument("--compare file '" + args.compare_path +
                                    "' is not a `render bench --json` result (no \"results\" list)");
    const auto frames = nlohmann::json{args.frames.start, args.frames.end};
    if (old.value("width", 0) != args.width || old.value("height", 0) != args.height ||
        old.value("frames", nlohmann::json()) != frames)
        throw std::invalid_argument("--compare file '" + args.compare_path + "' was measured at another size or " +
                                    "frame range (" + std::to_string(old.value("width", 0)) + "x" +
                                    std::to_string(old.value("height", 0)) + ", frames " +
                                    old.value("frames", nlohmann::json()).dump() + "); use the same --size and --frames");
    return old;
}

/// The renderers to run and the ones that cannot run here; outputs and the
/// --compare file are checked before anything runs.
BenchPlan plan_bench(const BenchArgs& args) {
    BenchPlan plan;
    plan.renderers = args.renderers;
    std::string why;
    const bool gpu = cuda_device_available(&why);
    if (plan.renderers.empty()) {
        if (!args.student_dir.empty()) plan.renderers.push_back("student");
        for (const auto& i : renderer_infos())
            if (i.name != "unordered" && i.name != "cpuref" && i.name != "student" && (gpu || !i.needs_gpu))
                plan.renderers.push_back(i.name);
        if (!gpu) std::fprintf(stderr, "note: without a GPU only 'cpu' is benchmarked (add cpuref with --renderers cpuref,cpu)\n");
    }
    for (size_t i = 0; i < plan.renderers.size(); ++i) {
        const std::string& r = plan.renderers[i];
        // named as the user named it: "renderer 'cuda' (= tiled) needs a CUDA GPU"
        const std::string reason = renderer_unavailable(i < args.renderers_said.size() ? args.renderers_said[i] : r);  // unknown names throw (exit 2)
        if (!reason.empty()) plan.unavailable[r] = reason;
    }
    const RendererContext ctx = student_context(args.student_dir, args.student_timeout, args.student_memory);  // checks the timeout
    const bool student = std::find(plan.renderers.begin(), plan.renderers.end(), "student") != plan.renderers.end();
    if (student && args.student_dir.empty())
        throw std::invalid_argument("renderer 'student' needs --student DIR (your course's render/ folder)");
    if (student && !plan.unavailable.count("student"))  // build once, up front: errors before anything runs
        plan.student = make_renderer("student", ctx);
    if (!args.json_path.empty()) check_writable(args.json_path);
    if (!args.csv_path.empty()) check_writable(args.csv_path);
    if (!args.compare_path.empty()) plan.old = read_compare_file(args);
    plan.device = gpu ? gpu_description() : "none (" + why + ")";
    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    plan.date = date;
    return plan;
}

/// Times renderer `r` (named `rname`) on `scene` (args.repeat runs, each
/// from a fresh setup) and, with args.check, compares its last image with
/// `reference` (rendered with cpuref on first use, or taken from cpuref's
/// own run).
BenchResult measure(const BenchArgs& args, const Scene& scene, const std::string& rname, Renderer& r,
                    Image& reference, bool& have_reference) {
    BenchResult res;
    res.scene = scene.name;
    res.renderer = r.name();
    const TimingMethod method = r.course_timing() ? TimingMethod::Course : args.timing;
    res.timing = method == TimingMethod::Course ? "course" : "events";
    std::vector<double> totals, clears, advances, renders;
    std::map<std::string, std::vector<double>> per_stage;
    std::vector<std::string> order;
    for (int k = 0; k < args.repeat; ++k) {
        r.setup(scene, args.width, args.height);
        const FrameTimes t = run_frames(r, args.frames, {}, method);
        totals.push_back(t.total_ms);
        clears.push_back(t.clear_ms);
        advances.push_back(t.advance_ms);
        renders.push_back(t.render_ms);
        for (const auto& s : t.stages) {
            if (!per_stage.count(s.name)) order.push_back(s.name);
            per_stage[s.name].push_back(s.ms);
        }
    }
    res.total_median = median(totals);
    res.total_min = *std::min_element(totals.begin(), totals.end());
    res.total_max = *std::max_element(totals.begin(), totals.end());
    res.clear = median(clears);
    res.advance = median(advances);
    res.render = median(renders);
    for (const auto& n : order) res.stages.push_back({n, median(per_stage[n])});
    const WorkCounts w = r.work();
    res.pairs = w.circle_tile_pairs;
    res.tests = w.coverage_tests;
    res.path = w.path;
    res.tile_order = w.tile_order;
    res.peak_bytes = r.peak_device_bytes();
    if (!args.check) return res;
    const Image& img = r.image();
    if (rname == "cpuref") {
        reference = img;
        have_reference = true;
    } else if (!have_reference) {
        std::fprintf(stderr, "      rendering %s for the check ...\n", live_reference_label().c_str());
        const std::unique_ptr<Renderer> cpuref = make_live_reference();
        reference = render_last_frame(*cpuref, scene, args.width, args.height, args.frames.end);
        have_reference = true;
    }
    const CompareStats st = compare_images(img, reference);
    res.check = st.pass ? "ok" : "F";
    res.max_error = st.max_abs_error;
    return res;
}

/// A row whose renderer failed: the table says `fault`, the message is listed under it.
BenchResult fault_row(const std::string& scene, const std::string& renderer, const std::string& what) {
    BenchResult res;
    res.scene = scene;
    res.renderer = renderer;
    res.status = RowStatus::Fault;
    res.fault = what;
    std::fprintf(stderr, "      %s\n", what.c_str());
    return res;
}

/// Runs every scene x renderer; unavailable renderers give a row saying so.
std::vector<BenchResult> measure_all(const BenchArgs& args, const BenchPlan& plan) {
    std::vector<BenchResult> results;
    const size_t total_runs = args.scenes.size() * (plan.renderers.size() - plan.unavailable.size());
    size_t run = 0;
    for (const auto& scene_name : args.scenes) {
        const SceneLoad load = load_scene(SceneRequest{scene_name, "", "", args.seed});  // snowsingle: ./snow.par
        if (!load.note.empty()) std::fprintf(stderr, "%s\n", load.note.c_str());
        const Scene& scene = load.scene;
        const long long blends = count_blends(scene, args.width, args.height);
        Image reference;
        bool have_reference = false;
        for (const auto& rname : plan.renderers) {
            if (plan.unavailable.count(rname)) {
                BenchResult res;
                res.scene = scene_name;
                res.renderer = rname;
                res.status = RowStatus::Unavailable;
                results.push_back(res);
                continue;
            }
            std::fprintf(stderr, "[%zu/%zu] %s on %s ...\n", ++run, total_runs, rname.c_str(), scene_name.c_str());
            try {
                std::unique_ptr<Renderer> fresh;  // ours: a fresh renderer per scene; the student's: plan's
                Renderer& r = rname == "student" ? *plan.student : *(fresh = make_renderer(rname));
                results.push_back(measure(args, scene, rname, r, reference, have_reference));
            } catch (const student::StudentFault& e) {  // the student's code failed: say so, go on with the rest
                results.push_back(fault_row(scene_name, rname, e.what()));
            } catch (const DeviceOutOfMemory& e) {  // a row that fails never stops the others
                results.push_back(fault_row(scene_name, rname, std::string("out of GPU memory: ") + e.what()));
            } catch (const CudaError& e) {
                results.push_back(fault_row(scene_name, rname, std::string("CUDA error: ") + e.what()));
            }
            results.back().blends = blends;
        }
    }
    return results;
}

/// cpuref's Total per scene (when it was run), for the speedup column.
std::map<std::string, double> cpuref_totals(const std::vector<BenchResult>& results) {
    std::map<std::string, double> t;
    for (const auto& r : results)
        if (r.renderer == "cpuref" && r.status == RowStatus::Measured) t[r.scene] = r.total_median;
    return t;
}

void print_table(std::FILE* out, const std::vector<BenchResult>& results, const BenchPlan& plan) {
    std::fprintf(out, "\n%-11s %-11s %-7s %10s %19s %9s %9s %9s %8s %10s %5s\n", "scene", "renderer", "timing",
                 "Total ms", "min-max", "clear", "advance", "render", "speedup", "Gblends/s", "check");
    const std::map<std::string, double> cpuref_total = cpuref_totals(results);
    for (const auto& r : results) {
        if (r.status != RowStatus::Measured) {
            std::fprintf(out, "%-11s %-11s %-7s %10s\n", r.scene.c_str(), r.renderer.c_str(), "-", status_name(r.status));
            continue;
        }
        char speed[32] = "-";
        if (cpuref_total.count(r.scene) && r.total_median > 0)
            std::snprintf(speed, sizeof speed, "%.1fx", cpuref_total.at(r.scene) / r.total_median);
        const double gbps = r.render > 0 ? r.blends / (r.render * 1e-3) / 1e9 : 0;
        char range[48];
        std::snprintf(range, sizeof range, "%.4f-%.4f", r.total_min, r.total_max);
        std::fprintf(out, "%-11s %-11s %-7s %10.4f %19s %9.4f %9.4f %9.4f %8s %10.2f %5s\n", r.scene.c_str(),
                     r.renderer.c_str(), r.timing.c_str(), r.total_median, range, r.clear, r.advance, r.render, speed,
                     gbps, r.check.c_str());
    }
    for (const auto& [name, why] : plan.unavailable) std::fprintf(out, "unavailable: %s\n", why.c_str());
    for (const auto& r : results)
        if (r.status == RowStatus::Fault) std::fprintf(out, "fault: %s on %s: %s\n", r.renderer.c_str(), r.scene.c_str(), r.fault.c_str());
    std::fprintf(out, "timing: events = cudaEvents around each GPU stage (host clock for CPU renderers); course = the "
                      "course's method, host clock around each call followed by cudaDeviceSynchronize()\n");
}

void print_details(std::FILE* out, const std::vector<BenchResult>& results) {
    std::fprintf(out, "\nPer-stage medians (ms) and work per frame:\n");
    bool any_fail = false;
    for (const auto& r : results) {
        if (r.status != RowStatus::Measured) continue;
        any_fail = any_fail || r.check == "F";
        std::fprintf(out, "%-11s %-11s", r.scene.c_str(), r.renderer.c_str());
        for (const auto& [n, ms] : r.stages) std::fprintf(out, " %s=%.4f", n.c_str(), ms);
        std::fprintf(out, " | blends=%lld pairs=%lld tests<=%lld", r.blends, r.pairs, r.tests);
        if (r.peak_bytes) std::fprintf(out, " peak=%.1fMiB", r.peak_bytes / 1048576.0);
        std::fprintf(out, "\n");
    }
    std::fprintf(out, "\nTotal = clear + advance + render, ms per frame (median of the repeats); speedup = cpuref's "
                      "Total / this Total (when cpuref was run); Gblends/s = circle-pixel blends per second of render time.\n");
    if (any_fail) std::fprintf(out, "F: the result differs from cpuref beyond the strict tolerance (1e-4, 5 pixels).\n");
}

void print_comparison(std::FILE* out, const BenchArgs& args, const BenchPlan& plan,
                      const std::vector<BenchResult>& results) {
    std::fprintf(out, "\nCompared with %s (%s): ratio = this run / earlier run (below 1 is faster)\n",
                 args.compare_path.c_str(), plan.old.value("date", std::string("?")).c_str());
    for (const auto& r : results) {
        if (r.status != RowStatus::Measured) continue;
        for (const auto& o : plan.old.value("results", nlohmann::json::array()))
            if (o.value("scene", "") == r.scene && o.value("renderer", "") == r.renderer &&
                o.value("status", "measured") == "measured") {
                const double before = o.value("total_median_ms", 0.0);
                std::fprintf(out, "%-11s %-11s %10.4f -> %10.4f ms  ratio %.3f\n", r.scene.c_str(), r.renderer.c_str(),
                             before, r.total_median, before > 0 ? r.total_median / before : 0.0);
            }
    }
}

nlohmann::json result_json(const BenchResult& r, const std::map<std::string, double>& cpuref_total) {
    if (r.status == RowStatus::Unavailable) return {{"scene", r.scene}, {"renderer", r.renderer}, {"status", "unavailable"}};
    if (r.status == RowStatus::Fault)
        return {{"scene", r.scene}, {"renderer", r.renderer}, {"status", "fault"}, {"fault", r.fault}};
    nlohmann::json e = {{"scene", r.scene}, {"renderer", r.renderer}, {"status", "measured"}, {"timing", r.timing},
                        {"total_median_ms", json_figure(r.total_median)}, {"total_min_ms", json_figure(r.total_min)},
                        {"total_max_ms", json_figure(r.total_max)}, {"clear_ms", json_figure(r.clear)},
                        {"advance_ms", json_figure(r.advance)}, {"render_ms", json_figure(r.render)}, {"check", r.check},
                        {"max_abs_error", as_written(static_cast<float>(r.max_error))}, {"blends", r.blends},
                        {"circle_tile_pairs", r.pairs}, {"coverage_tests_upper_bound", r.tests},
                        {"peak_device_bytes", r.peak_bytes}};
    for (const auto& [n, ms] : r.stages) e["stages"][n] = json_figure(ms);
    if (!r.path.empty()) e["path"] = r.path;
    if (!r.tile_order.empty()) e["tile_order"] = r.tile_order;
    if (cpuref_total.count(r.scene) && r.total_median > 0)
        e["speedup_vs_cpuref"] = json_figure(cpuref_total.at(r.scene) / r.total_median);
    return e;
}

void write_json(std::FILE* out, const BenchArgs& args, const BenchPlan& plan, const std::vector<BenchResult>& results) {
    nlohmann::json j = {{"device", plan.device}, {"date", plan.date}, {"width", args.width}, {"height", args.height},
                        {"frames", {args.frames.start, args.frames.end}}, {"repeat", args.repeat},
                        {"seed", args.seed}};
    j["results"] = nlohmann::json::array();
    const std::map<std::string, double> cpuref_total = cpuref_totals(results);
    for (const auto& r : results) j["results"].push_back(result_json(r, cpuref_total));
    for (const auto& [name, why] : plan.unavailable) j["unavailable"][name] = why;
    write_data_file(out, args.json_path, j.dump(2) + "\n");
}

void write_csv(std::FILE* out, const BenchArgs& args, const std::vector<BenchResult>& results) {
    std::string csv = "scene,renderer,total_median_ms,total_min_ms,total_max_ms,clear_ms,advance_ms,render_ms,check,"
                      "blends,circle_tile_pairs,status\n";
    for (const auto& r : results) {
        char line[512];
        if (r.status != RowStatus::Measured)  // no figures; the check and status columns say why
            std::snprintf(line, sizeof line, "%s,%s,,,,,,,%s,,,%s\n", r.scene.c_str(), r.renderer.c_str(),
                          status_name(r.status), status_name(r.status));
        else
            std::snprintf(line, sizeof line, "%s,%s,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%s,%lld,%lld,measured\n", r.scene.c_str(),
                          r.renderer.c_str(), r.total_median, r.total_min, r.total_max, r.clear, r.advance, r.render,
                          r.check.c_str(), r.blends, r.pairs);
        csv += line;
    }
    write_data_file(out, args.csv_path, csv);
}

}  // namespace

int run_bench(const BenchArgs& args) {
    const BenchPlan plan = plan_bench(args);
    std::FILE* out = report_stream({args.json_path, args.csv_path});
    std::fprintf(out, "render bench: %s, %dx%d, frames %d:%d, %d repeat(s), seed %u\nDevice: %s\n", plan.date.c_str(),
                 args.width, args.height, args.frames.start, args.frames.end, args.repeat, args.seed,
                 plan.device.c_str());
    const std::vector<BenchResult> results = measure_all(args, plan);
    print_table(out, results, plan);
    print_details(out, results);
    if (!args.compare_path.empty()) print_comparison(out, args, plan, results);
    if (!args.json_path.empty()) write_json(out, args, plan, results);
    if (!args.csv_path.empty()) write_csv(out, args, results);
    if (!plan.unavailable.empty())
        std::fprintf(stderr, "render: %zu of %zu renderers could not run here (see 'unavailable' above)\n",
                     plan.unavailable.size(), plan.renderers.size());
    const bool any_fail = std::any_of(results.begin(), results.end(), [](const BenchResult& r) { return r.check == "F"; });
    const bool any_fault = std::any_of(results.begin(), results.end(), [](const BenchResult& r) { return r.status == RowStatus::Fault; });
    if (any_fault) return kExitRuntime;  // a renderer crashed, hung or hit a CUDA error (or ran out of memory)
    if (any_fail) return kExitMismatch;  // a wrong result matters more than a missing GPU
    return plan.unavailable.empty() ? kExitOk : kExitNoGpu;
}

}  // namespace cr
