#!/usr/bin/env bash
# Installs what the project needs on Debian 12 (as root), then configures and
# builds it into build/. Safe to run again: apt and CMake skip finished work.
# The CUDA toolkit is optional: without nvcc the CPU renderers and the GUI are
# built, and the GPU renderers say that this build has no CUDA support.
#   CR_CUDA_ARCH   CUDA architectures (default: the CMake default, 75..90 + PTX)
#   CR_CUDA        AUTO (default: CUDA when nvcc is found), ON or OFF
#   CR_BUILD_DIR   build folder (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
# libarchive: class grading's archives; chromium: the class report's browser test; slurm-wlm and
# munge: the class grading's Slurm test (a one-node Slurm the test starts and stops).
packages=(cmake ninja-build g++ pkg-config libstb-dev libgtest-dev nlohmann-json3-dev libcli11-dev
          libglfw3-dev libimgui-dev python3-glad xvfb xauth libgl1-mesa-dri libuv1-dev libssl-dev
          libarchive-dev chromium slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
cuda=${CR_CUDA:-AUTO}
if [ "$cuda" != OFF ] && ! command -v nvcc >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH
  else echo "setup: no nvcc (CUDA toolkit) found: building the CPU renderers and the GUI only" >&2; fi
fi
build=${CR_BUILD_DIR:-build}
args=(-S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCR_CUDA=$cuda")
[ -n "${CR_CUDA_ARCH:-}" ] && args+=("-DCMAKE_CUDA_ARCHITECTURES=$CR_CUDA_ARCH")
cmake "${args[@]}" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
