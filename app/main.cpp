// circle-renderer: the interactive viewer (see docs/GUI.md). GLFW window with
// an OpenGL 3.3 core context (GLAD), a Dear ImGui panel on the left and the
// renderer's image on the right.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cstdio>
#include <exception>
#include <utility>

#include "app_options.h"
#include "viewer.h"

namespace cr::app {
namespace {

/// Queues key presses, so that a press and release within one frame still
/// counts (ImGui 1.86 only sees keys held down at a frame's start). ImGui's
/// backend, installed afterwards, chains to this callback.
void key_callback(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
    auto* input = static_cast<WindowInput*>(glfwGetWindowUserPointer(window));
    if (input && key != GLFW_KEY_UNKNOWN && action != GLFW_RELEASE) input->pressed.push_back(key);
}

void print_glfw_error(int code, const char* description) {
    std::fprintf(stderr, "circle-renderer: GLFW error %d: %s\n", code, description);
}

}  // namespace
}  // namespace cr::app

int main(int argc, char** argv) {
    using namespace cr::app;
    ParseResult parsed = parse_app_options(argc, argv);
    if (parsed.exit_now) return parsed.exit_code;
    const AppOptions& opt = parsed.options;

    if (!glfwInit()) {
        const char* why = nullptr;
        glfwGetError(&why);
        std::fprintf(stderr, "circle-renderer: cannot open a window (%s); run it on a desktop or under xvfb-run\n",
                     why ? why : "glfwInit failed");
        return 2;
    }
    glfwSetErrorCallback(print_glfw_error);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    GLFWwindow* window = glfwCreateWindow(opt.window_width, opt.window_height, "circle-renderer", nullptr, nullptr);
    if (!window) {
        std::fprintf(stderr, "circle-renderer: cannot create an OpenGL 3.3 core window\n");
        glfwTerminate();
        return 2;
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "circle-renderer: cannot load OpenGL 3.3 functions\n");
        glfwDestroyWindow(window);
        glfwTerminate();
        return 2;
    }

    WindowInput input;
    glfwSetWindowUserPointer(window, &input);
    glfwSetKeyCallback(window, key_callback);  // before ImGui's, which chains to it

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");

    int rc = 0;
    try {
        Viewer viewer(window, input, opt, std::move(parsed.scene));
        rc = viewer.run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "circle-renderer: %s\n", e.what());
        rc = 1;
    }

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return rc;
}
