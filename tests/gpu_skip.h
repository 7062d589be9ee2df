// REQUIRE_GPU(): the first line of every GPU test. Where no CUDA device is
// usable it reports the test as skipped (with the reason, e.g. "no NVIDIA GPU
// or driver found"), never as passed.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "render/renderer_factory.h"

/// Skips the current test, with the reason, when no CUDA device is usable.
#define REQUIRE_GPU()                                                \
    do {                                                             \
        std::string why_;                                            \
        if (!::cr::cuda_device_available(&why_)) GTEST_SKIP() << why_; \
    } while (0)
