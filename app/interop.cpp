// glad first: cuda_gl_interop.h includes <GL/gl.h>, which glad's header guard
// then turns into a no-op.
#include <glad/gl.h>

#if CR_HAVE_CUDA
#include <cuda_gl_interop.h>

#include "kernels/cuda_renderer.h"
#endif

#include "interop.h"

#include <vector>

#include "render/image_io.h"

namespace cr::app {

#if CR_HAVE_CUDA
namespace {
std::string cuda_message(const char* call, cudaError_t e) {
    cudaGetLastError();  // clear the error so the renderer's next check is not blamed
    return std::string(call) + ": " + cudaGetErrorName(e) + ", " + cudaGetErrorString(e);
}
cudaGraphicsResource_t as_resource(void* p) { return static_cast<cudaGraphicsResource_t>(p); }
}  // namespace

std::string CudaGlRegistration::register_buffer(GLuint buffer) {
    reset();
    cudaGraphicsResource_t res = nullptr;
    const cudaError_t e = cudaGraphicsGLRegisterBuffer(&res, buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) return cuda_message("cudaGraphicsGLRegisterBuffer", e);
    res_ = res;
    return "";
}

void CudaGlRegistration::reset() {
    if (res_) cudaGraphicsUnregisterResource(as_resource(res_));
    res_ = nullptr;
}
#else
std::string CudaGlRegistration::register_buffer(GLuint) { return "this build has no CUDA support"; }
void CudaGlRegistration::reset() {}
#endif

void DisplayTexture::release_interop() {
    reg_.reset();
    pbo_.reset();
}

void DisplayTexture::set_interop_allowed(bool allowed) {
    interop_allowed_ = allowed;
    if (!allowed) release_interop();
}

void DisplayTexture::upload(Renderer& r, int width, int height) {
    if (!tex_ || width != width_ || height != height_) {
        release_interop();  // the pixel buffer has the old size
        tex_ = make_rgba8_texture(width, height);
        width_ = width;
        height_ = height;
    }
    used_interop_ = false;
    if (!r.gpu_image().pixels) {
        upload_host(r, "renderer runs on the CPU");
    } else if (!interop_allowed_) {
        upload_host(r, "interop switched off");
    } else if (!interop_failure_.empty()) {
        upload_host(r, interop_failure_);
    } else if (upload_interop(r)) {
        used_interop_ = true;
        path_ = "CUDA-GL interop (pixel buffer written by the present kernel)";
    } else {
        upload_host(r, interop_failure_);
    }
}

bool DisplayTexture::upload_interop(Renderer& r) {
#if CR_HAVE_CUDA
    const GpuImage gpu = r.gpu_image();
    const size_t bytes = static_cast<size_t>(width_) * height_ * 4;
    auto fail = [&](const std::string& why) {
        interop_failure_ = "interop unavailable: " + why;
        release_interop();
        return false;
    };
    if (!reg_.get()) {
        pbo_ = make_buffer();
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
        glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        const std::string why = reg_.register_buffer(pbo_.get());
        if (!why.empty()) return fail(why);
    }
    const cudaStream_t stream = static_cast<cudaStream_t>(gpu.stream);
    cudaGraphicsResource_t res = as_resource(reg_.get());
    cudaError_t e = cudaGraphicsMapResources(1, &res, stream);
    if (e != cudaSuccess) return fail(cuda_message("cudaGraphicsMapResources", e));
    void* ptr = nullptr;
    size_t mapped = 0;
    e = cudaGraphicsResourceGetMappedPointer(&ptr, &mapped, res);
    if (e != cudaSuccess || mapped < bytes) {
        cudaGraphicsUnmapResources(1, &res, stream);
        return fail(e != cudaSuccess ? cuda_message("cudaGraphicsResourceGetMappedPointer", e)
                                     : "mapped pixel buffer is smaller than the image");
    }
    try {
        // Same stream as the renderer's stages: runs after this frame's render.
        present_rgba8(gpu.pixels, static_cast<unsigned char*>(ptr), width_, height_, /*flip=*/true, gpu.stream);
    } catch (...) {
        cudaGraphicsUnmapResources(1, &res, stream);
        throw;  // a kernel failure is the renderer's: the caller falls back
    }
    // Unmapping orders the stream's work before any later GL use of the buffer.
    e = cudaGraphicsUnmapResources(1, &res, stream);
    if (e != cudaSuccess) return fail(cuda_message("cudaGraphicsUnmapResources", e));

    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
    glBindTexture(GL_TEXTURE_2D, tex_.get());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    return true;
#else
    (void)r;
    interop_failure_ = "interop unavailable: this build has no CUDA support";
    return false;
#endif
}

void DisplayTexture::upload_host(Renderer& r, const std::string& why) {
    const Image& img = r.image();
    if (img.width != width_ || img.height != height_) return;  // not set up yet
    const std::vector<uint8_t> rgba = to_rgb8_top_down(img, /*with_alpha=*/true);
    glBindTexture(GL_TEXTURE_2D, tex_.get());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    path_ = "host copy (" + why + ")";
}

}  // namespace cr::app
