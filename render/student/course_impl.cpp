// The course framework's functions that a student's code calls
// (sceneLoader.h, ppm.h; noise.h is course_noise.cpp), implemented on the
// project's scenes. They are linked into the worker executable, which exports
// them to the student's shared library (-rdynamic), so the student's
// renderer loads exactly the circles `cpuref` draws.
#include <cstdio>
#include <stdexcept>

#include "render/student/course/image.h"
#include "render/student/course/ppm.h"
#include "render/student/course/sceneLoader.h"
#include "render/student/course_context.h"
#include "render/student/protocol.h"
#include "scenes/scene.h"

namespace cr::student {

namespace {

float* copy_triples(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c) {
    float* out = new float[3 * a.size()];
    for (size_t i = 0; i < a.size(); ++i) {
        out[3 * i + 0] = a[i];
        out[3 * i + 1] = b[i];
        out[3 * i + 2] = c[i];
    }
    return out;
}

}  // namespace

CourseContext& course_context() {
    static CourseContext context;  // the course API has no context argument: one per worker process
    return context;
}

const Scene& course_scene_for(int scene_value, int seed) {
    CourseContext& c = course_context();
    if (c.has_scene) return c.scene;
    const std::string name = course_scene_name(scene_value);
    if (name.empty()) throw std::invalid_argument("loadCircleScene: unknown scene " + std::to_string(scene_value));
    c.scene = make_scene(name, static_cast<uint32_t>(seed));
    return c.scene;
}

}  // namespace cr::student

void loadCircleScene(SceneName sceneName, int& numCircles, float*& position, float*& velocity, float*& color,
                     float*& radius, int seed) {
    const cr::Scene& s = cr::student::course_scene_for(static_cast<int>(sceneName), seed);
    numCircles = static_cast<int>(s.count());
    position = cr::student::copy_triples(s.x, s.y, s.z);
    velocity = cr::student::copy_triples(s.vx, s.vy, s.vz);
    color = cr::student::copy_triples(s.r, s.g, s.b);
    radius = new float[s.count()];
    for (size_t i = 0; i < s.count(); ++i) radius[i] = s.radius[i];
}

void writePPMImage(const Image* image, const char* filename) {
    std::FILE* f = std::fopen(filename, "wb");
    if (!f) {
        std::fprintf(stderr, "writePPMImage: cannot write %s\n", filename);
        return;
    }
    std::fprintf(f, "P6\n%d %d\n255\n", image->width, image->height);
    for (int j = image->height - 1; j >= 0; --j)
        for (int i = 0; i < image->width; ++i) {
            const float* p = image->data + 4 * (j * image->width + i);
            for (int c = 0; c < 3; ++c) {
                const float v = p[c] < 0.f ? 0.f : (p[c] > 1.f ? 1.f : p[c]);
                std::fputc(static_cast<char>(255.f * v), f);
            }
        }
    std::fclose(f);
    std::printf("Wrote image file %s\n", filename);
}
