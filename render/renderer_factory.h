// Which renderers exist and how to build one by name: the frame layer's
// entry point to the CPU and CUDA renderers (render/cpu/, kernels/).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "render/core/renderer.h"

namespace cr {

/// Description of a renderer the factory can build.
struct RendererInfo {
    std::string name;
    std::string description;
    bool needs_gpu = false;
    bool incorrect_by_design = false;  ///< the `unordered` teaching demo
};

/// Every renderer the project has (cpuref, cpu, and the CUDA kernels, which
/// are listed also in a build without CUDA: make_renderer then refuses them).
const std::vector<RendererInfo>& renderer_infos();

/// The renderers for --help, from renderer_infos(): "cpuref, cpu, naive,
/// tiled (= cuda), persistent, ftb, unordered (demo, incorrect), student
/// (your renderer: --student DIR)".
std::string renderer_names_help();

/// Seconds a call of a student's renderer may take before it counts as a
/// hang, the default of `render`, `render bench`, `render grade` and the GUI.
constexpr double kDefaultStudentTimeout = 30;

/// The device-memory budget of a student's renderer, in bytes: `asked`
/// (--student-memory), or when 0 the default: 16 GiB (about 160 times what
/// the course's largest scene, micro2M at 1024x1024, needs: 80 MB of circles
/// and a 16 MB image), but at most half the GPU's memory, so that our
/// renderers always have room beside it.
unsigned long long student_memory_budget(unsigned long long asked);

/// True when this build has the CUDA renderers (nvcc found at configure time).
bool cuda_built();

/// CUDA devices this process can use (0 without, or in a build without CUDA).
int gpu_count();

/// True when a CUDA device is usable; `why` gets the reason when not.
bool cuda_device_available(std::string* why = nullptr);

/// The CUDA renderers' developer switches (CR_CUDA_OPTIONS keys: key=values,
/// what each does, the kernels it acts on), a line each, as `render --list`
/// prints them (kernels/cuda_options.cpp's table).
std::string cuda_switches_help();

/// "NAME (sm_XY, N SMs, M GiB)" of the CUDA device, or, without one, the
/// plain reason ("no NVIDIA GPU or driver found").
std::string gpu_description();

/// The best renderer available here: "tiled" with a CUDA device, else "cpu".
std::string default_renderer_name();

/// The renderer's name as renderer_infos() lists it ("cuda" -> "tiled",
/// "ref" -> "cpuref"). Throws std::invalid_argument listing the valid names.
std::string canonical_renderer_name(const std::string& name);

/// Why renderer `name` cannot run here, the bare reason ("no NVIDIA GPU or
/// driver found", "this build has no CUDA support ..."), or "" when it can.
/// CR_STUDENT_WITHOUT_GPU=1 in the environment (a test hook, with the
/// worker's CR_STUDENT_NO_CUDA_SYNC: host-only fixtures on a machine without
/// a GPU) lets 'student' run anyway. Throws std::invalid_argument for an
/// unknown name.
std::string renderer_unavailable_reason(const std::string& name);

/// Why renderer `name` cannot run here, as one message ("renderer 'tiled'
/// needs a CUDA GPU: no NVIDIA GPU or driver found"), or "" when it can.
/// Throws std::invalid_argument for an unknown name.
std::string renderer_unavailable(const std::string& name);

/// What some renderers need beyond their name.
struct RendererContext {
    std::string student_dir;          ///< renderer "student": the student's course render/ folder
    double student_timeout_s = kDefaultStudentTimeout;  ///< longest a student's call may take
    unsigned long long student_memory_bytes = 0;        ///< the student's device-memory budget (0: the default)
    int student_gpu = -1;  ///< the GPU the student's worker runs on (StudentOptions::gpu; -1: ours)
    /// Called once the student's library is ready, with a line saying where
    /// the build is (and whether it came from the cache) and where the
    /// student's own output goes.
    std::function<void(const std::string&)> on_note;
};

/// Builds renderer `name` ("cuda" is an alias of "tiled"; "student" builds
/// and loads ctx.student_dir). Throws std::invalid_argument for an unknown
/// name or a student renderer without a folder, NoCudaDeviceError for a GPU
/// renderer without a CUDA device or in a build without CUDA (the message of
/// renderer_unavailable, then "; use --renderer cpu or cpuref"), and for
/// "student" what cr::student::build_student throws (NvccMissing, BuildError).
std::unique_ptr<Renderer> make_renderer(const std::string& name, const RendererContext& ctx = {});

/// The renderer that draws the live reference of --check, `render bench`,
/// `render grade` and the GUI's check: `cpu`, the multi-core renderer, which
/// tests/test_cpu_parallel.cpp proves bit-identical to the sequential
/// `cpuref` (the ground truth) on every scene, and which is 10-35 times
/// faster on 16 cores. For `checked` == "cpu" itself it is `cpuref`, so a
/// renderer is never checked against itself.
std::unique_ptr<Renderer> make_live_reference(const std::string& checked = "");

/// How reports name the live reference: "cpuref (live, drawn by the
/// multi-core 'cpu' renderer, bit-identical to cpuref)", or "cpuref (live)"
/// when it is cpuref itself.
std::string live_reference_label(const std::string& checked = "");

/// Exact sum over circles of the pixels each covers (the blends a frame
/// does), counted on the CPU for the scene as it is now.
long long count_blends(const Scene& scene, int width, int height);

}  // namespace cr
