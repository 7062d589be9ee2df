#include "render/reference_set.h"

#include <cstdio>
#include <cstdlib>

namespace cr {

std::string reference_file_name(const std::string& scene, int w, int h, uint32_t seed, int frame) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s_%dx%d_s%u_f%04d.png", scene.c_str(), w, h, seed, frame);
    return buf;
}

std::string ReferenceSpec::file_name() const { return reference_file_name(scene, width, height, seed, frame); }

std::string default_reference_dir() {
    if (const char* env = std::getenv("CR_REFERENCE_DIR")) return env;
    return std::string(CR_SOURCE_DIR) + "/reference_images";
}

std::vector<ReferenceSpec> reference_set(bool small_only) {
    struct Entry {
        const char* scene;
        std::vector<int> frames;
    };
    const std::vector<Entry> entries = {
        {"rgb", {0}},        {"rgby", {0}},          {"rand10k", {0}},        {"rand100k", {0}},
        {"rand1M", {0}},     {"biglittle", {0}},     {"littlebig", {0}},      {"pattern", {0}},
        {"micro2M", {0}},    {"bouncingballs", {0, 60}}, {"fireworks", {0, 45}}, {"hypnosis", {0, 30}},
        {"snow", {150, 300}}, {"snowsingle", {0}},
    };
    std::vector<ReferenceSpec> out;
    for (int size : {256, 1024}) {
        if (small_only && size != 256) continue;
        for (const auto& e : entries)
            for (int f : e.frames) out.push_back(ReferenceSpec{e.scene, size, size, 0, f});
    }
    return out;
}

}  // namespace cr
