// Move-only RAII owners of OpenGL objects. Each deletes its object in the
// destructor, so the GL context must still be current then (the application
// destroys every owner before the window).
#pragma once

#include <glad/gl.h>

#include <string>
#include <utility>

namespace cr::app {

/// Owner of one GL name; `Deleter` is called as Deleter()(name) when non-zero.
template <typename Deleter>
class GlName {
public:
    GlName() = default;
    explicit GlName(GLuint id) : id_(id) {}
    ~GlName() { reset(); }
    GlName(const GlName&) = delete;
    GlName& operator=(const GlName&) = delete;
    GlName(GlName&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
    GlName& operator=(GlName&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, 0);
        }
        return *this;
    }
    /// The GL name (0 when empty).
    GLuint get() const { return id_; }
    explicit operator bool() const { return id_ != 0; }
    /// Deletes the object now.
    void reset() {
        if (id_) Deleter()(id_);
        id_ = 0;
    }

private:
    GLuint id_ = 0;
};

struct TextureDeleter { void operator()(GLuint id) const { glDeleteTextures(1, &id); } };
struct BufferDeleter { void operator()(GLuint id) const { glDeleteBuffers(1, &id); } };
struct VertexArrayDeleter { void operator()(GLuint id) const { glDeleteVertexArrays(1, &id); } };
struct ProgramDeleter { void operator()(GLuint id) const { glDeleteProgram(id); } };

using GlTexture = GlName<TextureDeleter>;
using GlBuffer = GlName<BufferDeleter>;
using GlVertexArray = GlName<VertexArrayDeleter>;
using GlProgram = GlName<ProgramDeleter>;

/// A new texture name (glGenTextures).
GlTexture make_texture();
/// A new buffer name (glGenBuffers).
GlBuffer make_buffer();
/// A new vertex array name (glGenVertexArrays).
GlVertexArray make_vertex_array();

/// Compiles and links a vertex + fragment shader program. Throws
/// std::runtime_error with the GL info log on a compile or link error.
GlProgram make_program(const char* vertex_src, const char* fragment_src);

/// A width x height RGBA8 texture with no data, clamped to edge, nearest
/// filtering (left bound to GL_TEXTURE_2D).
GlTexture make_rgba8_texture(int width, int height);

}  // namespace cr::app
