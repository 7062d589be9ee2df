// A student's renderer run under compute-sanitizer (render/student/sanitize.h)
// for some frames of a scene: what `render --student DIR --sanitize`, the GUI
// workbench's Sanitize button and the GPU tests share.
#pragma once

#include <string>

#include "render/core/circles.h"
#include "render/renderer_factory.h"
#include "render/student/sanitize.h"
#include "render/student/student_build.h"

namespace cr {

/// What a sanitized run found.
struct SanitizeOutcome {
    student::SanitizerReport report;  ///< with the student's own paths
    std::string fault;                ///< what stopped the renderer ("" when it ran to the end)
    std::string report_path;          ///< the tool's whole report
    std::string tool;
};

/// Runs the built renderer `build` under compute-sanitizer's `tool` (see
/// sanitizer_tool) on frames 0..frames-1 of `scene` at width x height, with
/// the time limit (ten times ctx's, at least 300 s) and device-memory budget
/// of `ctx`. Throws SanitizerMissing without compute-sanitizer,
/// NoCudaDeviceError without a GPU.
SanitizeOutcome sanitize_student(const student::BuildResult& build, const Scene& scene, int width, int height,
                                 int frames, const std::string& tool, const RendererContext& ctx);

}  // namespace cr
