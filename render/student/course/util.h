// circle-renderer's version of the course framework's util.h.
#ifndef __UTIL_H__
#define __UTIL_H__

#include <algorithm>

#define CLAMP(x, minimum, maximum) std::max(minimum, std::min(x, maximum))

#endif
