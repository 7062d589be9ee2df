// value_bounds (coalesce.h): the range every color channel of a scene's
// pixels lies in, for the two trajectories of exact early stopping.
#include "render/core/coalesce.h"

#include <algorithm>
#include <cmath>

#include "render/core/circles.h"

namespace cr {

ValueBounds value_bounds(const Scene& s) {
    ValueBounds b;
    float top = 1.f;  // the flat background, and the snow ramp's brightest entry (its background is below)
    if (s.shade != ShadeMode::Snow)
        for (size_t k = 0; k < s.count(); ++k)
            for (float v : {s.r[k], s.g[k], s.b[k]}) {
                if (!std::isfinite(v) || v < 0.f) b.valid = false;
                else top = std::max(top, v);
            }
    b.hi = 2.f * top;
    return b;
}

}  // namespace cr
