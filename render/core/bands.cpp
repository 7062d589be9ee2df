#include "render/core/bands.h"

#include <cstring>

namespace cr {

void parallel_copy(void* dst, const void* src, size_t bytes) {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for_bands(bytes, bands_for_bytes(bytes), [&](size_t begin, size_t end) { std::memcpy(d + begin, s + begin, end - begin); });
}

}  // namespace cr
