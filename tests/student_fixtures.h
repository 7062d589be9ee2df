// The student-renderer fixtures of tests/students/ (assembled into the build
// tree by tests/CMakeLists.txt) for the tests that build them: where they
// are, where their builds are cached, and REQUIRE_NVCC(), which reports a
// test as skipped, never as passed, where nvcc is missing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "render/student/student_build.h"

#ifndef CR_FIXTURES_DIR
#error "CR_FIXTURES_DIR (the assembled fixtures) must be defined by tests/CMakeLists.txt"
#endif

namespace cr::testing_students {

/// The assembled fixtures: $CR_FIXTURES_DIR (e.g. on another machine), else the build tree's.
inline std::string fixture_root() {
    const char* env = std::getenv("CR_FIXTURES_DIR");
    return env ? env : CR_FIXTURES_DIR;
}

/// Where the fixtures' builds are cached: beside the fixtures, in the build
/// tree (shared by every test that builds them), not the user's cache.
inline std::string fixture_cache_root() { return fixture_root() + "/../student-cache"; }

}  // namespace cr::testing_students

/// Skips the current test when no nvcc is found (building a fixture needs it).
#define REQUIRE_NVCC()                                                                   \
    do {                                                                                 \
        if (::cr::student::find_nvcc().empty()) GTEST_SKIP() << "no nvcc on this machine"; \
    } while (0)
