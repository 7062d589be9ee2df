#include "render/student/protocol.h"

#include <cstring>
#include <stdexcept>

namespace cr::student {

namespace {

/// Names of the course's SceneName values, in enum order.
const char* const kCourseScenes[14] = {"rgb",  "rgby",      "rand10k",       "rand100k",   "pattern",
                                       "snow", "fireworks", "hypnosis",      "bouncingballs", "snowsingle",
                                       "biglittle", "littlebig", "rand1M", "micro2M"};

struct SceneHeader {
    uint32_t magic;
    uint32_t seed;
    int32_t shade, motion;
    uint64_t count;
    uint64_t aux_count;  ///< entries of aux_x and aux_y (0 or count)
    char name[112];
};

}  // namespace

std::string cuda_error_text(const std::string& name_and_text) {
    const size_t tab = name_and_text.find('\t');
    return tab == std::string::npos ? name_and_text : name_and_text.substr(tab + 1);
}

std::string cuda_error_sentence(int code, const std::string& name_and_text) {
    const size_t tab = name_and_text.find('\t');
    const std::string name = tab == std::string::npos ? "" : name_and_text.substr(0, tab);
    const std::string text = cuda_error_text(name_and_text);
    return "CUDA error " + std::to_string(code) + (name.empty() ? "" : " (" + name + ")") + ", " + text;
}

std::string exit_sentence(const WorkerStatus& st, const std::string& where) {
    if (!st.exited) return "";
    const std::string text(st.cuda_text, strnlen(st.cuda_text, sizeof st.cuda_text));
    std::string s = "your code called exit(" + std::to_string(st.exit_code) + ") in " + where;
    if (st.cuda_error == 0) return s;
    s += ", after " + cuda_error_sentence(st.cuda_error, text);
    if ((st.cuda_error & 0xff) == st.exit_code && st.cuda_error != st.exit_code)
        s += " (" + std::to_string(st.exit_code) + " is what exit() keeps of " + std::to_string(st.cuda_error) + ")";
    return s;
}

const char* call_name(Call c) {
    switch (c) {
        case Call::LoadLibrary: return "loading the library";
        case Call::Constructor: return "the CudaRenderer constructor";
        case Call::AllocOutputImage: return "allocOutputImage()";
        case Call::LoadScene: return "loadScene()";
        case Call::Setup: return "setup()";
        case Call::ClearImage: return "clearImage()";
        case Call::AdvanceAnimation: return "advanceAnimation()";
        case Call::Render: return "render()";
        case Call::GetImage: return "getImage()";
        case Call::Destructor: return "the CudaRenderer destructor";
        case Call::Frame: return "the frame's calls (clearImage(), advanceAnimation(), render())";
        default: return "the worker";
    }
}

int course_scene_value(const Scene& s) {
    for (int i = 0; i < 14; ++i)
        if (s.name == kCourseScenes[i]) return i;
    if (s.shade == ShadeMode::Snow) return 9;
    if (s.name == "rand10M") return 12;
    return 2;
}

std::string course_scene_name(int value) { return value >= 0 && value < 14 ? kCourseScenes[value] : ""; }

size_t scene_region_bytes(size_t count) { return sizeof(SceneHeader) + 12 * count * sizeof(float); }

void write_scene(void* region, const Scene& s) {
    SceneHeader h{};
    h.magic = kProtocolMagic;
    h.seed = s.seed;
    h.shade = static_cast<int32_t>(s.shade);
    h.motion = static_cast<int32_t>(s.motion);
    h.count = s.count();
    h.aux_count = s.aux_x.size() == s.count() && s.aux_y.size() == s.count() ? s.count() : 0;
    std::strncpy(h.name, s.name.c_str(), sizeof h.name - 1);
    std::memcpy(region, &h, sizeof h);
    float* out = reinterpret_cast<float*>(static_cast<char*>(region) + sizeof h);
    for (const std::vector<float>* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.radius, &s.r, &s.g, &s.b}) {
        std::memcpy(out, v->data(), s.count() * sizeof(float));
        out += s.count();
    }
    if (h.aux_count) {
        std::memcpy(out, s.aux_x.data(), s.count() * sizeof(float));
        std::memcpy(out + s.count(), s.aux_y.data(), s.count() * sizeof(float));
    }
}

Scene read_scene(const void* region, size_t bytes) {
    SceneHeader h;
    if (bytes < sizeof h) throw std::runtime_error("scene region too small");
    std::memcpy(&h, region, sizeof h);
    if (h.magic != kProtocolMagic || bytes < scene_region_bytes(h.count))
        throw std::runtime_error("the shared region holds no scene");
    Scene s;
    s.name.assign(h.name, strnlen(h.name, sizeof h.name));
    s.seed = h.seed;
    s.shade = static_cast<ShadeMode>(h.shade);
    s.motion = static_cast<Motion>(h.motion);
    s.resize(h.count);
    const float* in = reinterpret_cast<const float*>(static_cast<const char*>(region) + sizeof h);
    for (std::vector<float>* v : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.radius, &s.r, &s.g, &s.b}) {
        std::memcpy(v->data(), in, h.count * sizeof(float));
        in += h.count;
    }
    if (h.aux_count) {
        s.aux_x.assign(in, in + h.count);
        s.aux_y.assign(in + h.count, in + 2 * h.count);
    }
    return s;
}

}  // namespace cr::student
