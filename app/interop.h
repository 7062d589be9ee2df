// The texture that shows the renderer's image, and how it is filled:
// CUDA-OpenGL interop for CUDA renderers (no host round trip), or a host copy.
#pragma once

#include <string>

#include "gl_objects.h"
#include "render/core/renderer.h"

namespace cr::app {

/// Owner of a CUDA registration of a GL buffer object; unregisters it on
/// destruction (before the buffer itself is deleted: declare it after the
/// GlBuffer it registers). In a build without CUDA it never registers.
class CudaGlRegistration {
public:
    CudaGlRegistration() = default;
    ~CudaGlRegistration() { reset(); }
    CudaGlRegistration(const CudaGlRegistration&) = delete;
    CudaGlRegistration& operator=(const CudaGlRegistration&) = delete;
    /// Registers `buffer` for write-discard use by CUDA; returns "" when
    /// registered, else the CUDA error. Any earlier registration is released first.
    std::string register_buffer(GLuint buffer);
    /// Unregisters (no-op when empty).
    void reset();
    /// The cudaGraphicsResource_t (as void*), null when not registered.
    void* get() const { return res_; }

private:
    void* res_ = nullptr;
};

/// An RGBA8 texture holding the renderer's image, TOP row first (as the PNG
/// files; the quad flips it back). upload() fills it each frame:
/// - interop: for a renderer with a device image (Renderer::gpu_image), a
///   pixel-unpack buffer registered with CUDA is mapped on the renderer's
///   stream, cr::present_rgba8 writes the
///   pixels into it, it is unmapped, and glTexSubImage2D copies it into the
///   texture on the GPU;
/// - host copy: image() -> RGBA8 -> glTexSubImage2D, used for CPU renderers,
///   when interop is switched off, or once registering/mapping failed (e.g.
///   the GL context runs on another GPU or in software); path() says why.
class DisplayTexture {
public:
    /// Copies r's current width x height image into the texture, (re)creating
    /// the texture and pixel buffer when the size changed. Exceptions of the
    /// renderer (cr::CudaError, ...) propagate; interop failures do not (they
    /// switch to the host copy for good and are reported by path()).
    void upload(Renderer& r, int width, int height);
    /// The GL texture (0 before the first upload).
    GLuint texture() const { return tex_.get(); }
    int width() const { return width_; }
    int height() const { return height_; }
    /// How the last upload was done, e.g. "CUDA-GL interop" or
    /// "host copy (renderer runs on the CPU)".
    const std::string& path() const { return path_; }
    /// True when the last upload used interop.
    bool used_interop() const { return used_interop_; }
    /// Allows or forbids interop (forbidding releases the pixel buffer).
    void set_interop_allowed(bool allowed);
    bool interop_allowed() const { return interop_allowed_; }

private:
    /// Tries the interop path; false (with path_ set) when it cannot be used.
    bool upload_interop(Renderer& r);
    void upload_host(Renderer& r, const std::string& why);
    void release_interop();

    int width_ = 0, height_ = 0;
    GlTexture tex_;
    GlBuffer pbo_;
    CudaGlRegistration reg_;  // after pbo_: unregistered before the buffer is deleted
    bool interop_allowed_ = true;
    std::string interop_failure_;  ///< non-empty once interop failed (sticky)
    std::string path_;
    bool used_interop_ = false;
};

}  // namespace cr::app
