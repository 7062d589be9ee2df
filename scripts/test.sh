#!/usr/bin/env bash
# Builds (scripts/setup.sh) and runs the whole test suite: the unit, CLI,
# reference-image and GUI tests through ctest (GPU tests report "skipped"
# where no CUDA device exists), then the host code again, built a second time
# as a machine without the CUDA toolkit builds it (-DCR_CUDA=OFF, nvcc off the
# PATH, the student harness finding no nvcc: CPU renderers, `render` and the
# GUI) and under AddressSanitizer + UndefinedBehaviorSanitizer. Ends with
# one line: tests passed, failed, skipped and why (scripts/test_summary.py);
# the exit code is 0 only when nothing failed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${CR_BUILD_DIR:-build}
results=$(pwd)/$build/test-results
mkdir -p "$results"
rm -f "$results"/*.xml "$results"/gpu-names.txt
rc=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --output-junit "$results/ctest.xml" || rc=1
ctest --test-dir "$build" -N -L gpu > "$results/gpu-names.txt" || true
# The second build: no CUDA toolkit in sight, sanitizers on (CUDA kernels are
# checked by compute-sanitizer on a GPU machine: scripts/gpu_validate.sh).
# Coalescence's every-scene test (3 minutes under the sanitizers, 36 s in the
# first build) runs in the first build only; its smaller test runs in both.
no_cuda_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -i cuda | paste -sd: -)
env PATH="$no_cuda_path" cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCR_SANITIZE=ON -DCR_CUDA=OFF >/dev/null
env PATH="$no_cuda_path" cmake --build build-asan --parallel "$(nproc)"
env PATH="$no_cuda_path" CR_NVCC=/nonexistent/nvcc ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -LE "gpu|gui|slow" \
        -E "^Coalescence\.EveryPixelOfEverySceneIsCprefsBitForBit$" \
        --output-junit "$results/ctest-asan.xml" || rc=1
python3 scripts/test_summary.py --gpu-names "$results/gpu-names.txt" "$results"/ctest.xml "$results"/ctest-asan.xml
exit $rc
