#include "gl_objects.h"

#include <stdexcept>
#include <vector>

namespace cr::app {

GlTexture make_texture() {
    GLuint id = 0;
    glGenTextures(1, &id);
    return GlTexture(id);
}

GlBuffer make_buffer() {
    GLuint id = 0;
    glGenBuffers(1, &id);
    return GlBuffer(id);
}

GlVertexArray make_vertex_array() {
    GLuint id = 0;
    glGenVertexArrays(1, &id);
    return GlVertexArray(id);
}

namespace {
/// Owner of a shader object (only needed until the program is linked).
struct ShaderDeleter { void operator()(GLuint id) const { glDeleteShader(id); } };
using GlShader = GlName<ShaderDeleter>;

/// The info log of a shader or program (get_iv/get_log: glGetShaderiv and
/// glGetShaderInfoLog, or the program versions).
template <typename GetIv, typename GetLog>
std::string info_log(GLuint id, GetIv get_iv, GetLog get_log) {
    GLint len = 0;
    get_iv(id, GL_INFO_LOG_LENGTH, &len);
    std::vector<char> log(static_cast<size_t>(len) + 1, '\0');
    get_log(id, len, nullptr, log.data());
    return log.data();
}

GlShader compile(GLenum type, const char* src) {
    GlShader s(glCreateShader(type));
    glShaderSource(s.get(), 1, &src, nullptr);
    glCompileShader(s.get());
    GLint ok = 0;
    glGetShaderiv(s.get(), GL_COMPILE_STATUS, &ok);
    if (!ok)
        throw std::runtime_error(std::string(type == GL_VERTEX_SHADER ? "vertex" : "fragment") +
                                 " shader failed to compile: " +
                                 info_log(s.get(), glGetShaderiv, glGetShaderInfoLog));
    return s;
}
}  // namespace

GlProgram make_program(const char* vertex_src, const char* fragment_src) {
    const GlShader vs = compile(GL_VERTEX_SHADER, vertex_src);
    const GlShader fs = compile(GL_FRAGMENT_SHADER, fragment_src);
    GlProgram p(glCreateProgram());
    glAttachShader(p.get(), vs.get());
    glAttachShader(p.get(), fs.get());
    glLinkProgram(p.get());
    GLint ok = 0;
    glGetProgramiv(p.get(), GL_LINK_STATUS, &ok);
    if (!ok)
        throw std::runtime_error("shader program failed to link: " +
                                 info_log(p.get(), glGetProgramiv, glGetProgramInfoLog));
    glDetachShader(p.get(), vs.get());
    glDetachShader(p.get(), fs.get());
    return p;
}

GlTexture make_rgba8_texture(int width, int height) {
    GlTexture t = make_texture();
    glBindTexture(GL_TEXTURE_2D, t.get());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    return t;
}

}  // namespace cr::app
