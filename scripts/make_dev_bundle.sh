#!/usr/bin/env bash
# Packs what the GPU machine needs to run scripts/gpu_validate.sh into one
# compressed file, .dev.tar.xz (git ignores it; carry it with the device
# tool): render, its student worker, gpu_tests and course_like_main from the
# build folder, stripped; every shared library they load that is not part of
# glibc (libgomp, libstb, libarchive and what it needs: that machine's image
# has none of them); and the assembled student fixtures. On the GPU machine
# scripts/gpu_validate.sh unpacks it into .dev/ when .dev/ is missing.
#   CR_BUILD_DIR  the build folder (default: build; configure it with CR_CUDA_ARCH=90 for the H200)
#   SLIM=1        leave out gpu_tests and course_like_main (12 MB less: with the GUI's .gl/ beside it,
#                 the full bundle passes the device tool's 64 MiB carry limit)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CR_BUILD_DIR:-build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/.dev"
binaries="render render-student-worker libcr_cuda_gate.so tests/gpu_tests tests/course_like_main"
[ "${SLIM:-0}" = 1 ] && binaries="render render-student-worker libcr_cuda_gate.so"
for b in $binaries; do
  [ -x "$build/$b" ] || { echo "make_dev_bundle: $build/$b is missing (build first: cmake --build $build)" >&2; exit 2; }
  cp "$build/$b" "$stage/.dev/"
  strip "$stage/.dev/$(basename "$b")"
done
# the libraries outside glibc and the C++ runtime that the binaries load
for lib in $(ldd "$build/render" "$build/render-student-worker" | awk '$3 ~ /^\// {print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
    *) cp -L "$lib" "$stage/.dev/" ;;
  esac
done
cp -r "$build/tests/students" "$stage/.dev/students"
tar -C "$stage" -cJf .dev.tar.xz .dev
echo "make_dev_bundle: .dev.tar.xz $(du -h .dev.tar.xz | cut -f1) ($(ls "$stage/.dev" | wc -l) files and the fixtures)"
