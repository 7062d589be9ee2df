// The course framework's noise.h functions for the student's code, on the
// project's copy of the course's tables (scenes/noise.h): the same noise the
// snow scenes of cpuref are animated with.
#include "render/student/course/noise.h"

#include <algorithm>

#include "scenes/noise.h"

namespace {

/// Writable copies: the course hands out int* and float*, and students copy
/// them to the GPU (they never write them, but the types are not const).
struct Tables {
    int perm_x[256], perm_y[256];
    float value_1d[256];
    Tables() {
        namespace n = cr::course_noise;
        std::copy(n::perm_x, n::perm_x + 256, perm_x);
        std::copy(n::perm_y, n::perm_y + 256, perm_y);
        std::copy(n::value_1d, n::value_1d + 256, value_1d);
    }
};

Tables& tables() {
    static Tables t;
    return t;
}

}  // namespace

void vec2CellNoise(float location[3], float result[2], int index) {
    const cr::course_noise::NoisePair n = cr::course_noise::noise(location[0], location[1], location[2], index);
    result[0] = n.x;
    result[1] = n.y;
}

void getNoiseTables(int** permX, int** permY, float** value1D) {
    *permX = tables().perm_x;
    *permY = tables().perm_y;
    *value1D = tables().value_1d;
}
