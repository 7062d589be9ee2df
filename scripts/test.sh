#!/usr/bin/env bash
# Builds (scripts/setup.sh) and runs the whole test suite: the unit, CLI,
# reference-image and GUI tests through ctest (GPU tests report "skipped"
# where no CUDA device exists), then the scene loader, CLI and CPU renderer
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir "${CR_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
# Sanitizer pass: host code only (CUDA kernels are checked by compute-sanitizer
# on a GPU machine: scripts/gpu_sanitize.sh).
CR_BUILD_DIR=build-asan bash -c 'cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCR_SANITIZE=ON \
  -DCR_BUILD_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES=75 >/dev/null && cmake --build build-asan --parallel "$(nproc)"'
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -LE "gpu|gui|slow"
