#!/usr/bin/env bash
# Nsight Compute evidence for docs/PERFORMANCE.md: speed-of-light (compute vs
# memory throughput), occupancy and warp-stall reasons of the main kernels,
# one launch each, clocks left alone (--clock-control none).
# Run on a CUDA machine from the repo root: RENDER=build/render bash scripts/gpu_profile.sh
set -u
RENDER=${RENDER:-build/render}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
prof() {  # name, kernel regex, render args...
  local name=$1 regex=$2; shift 2
  timeout 120 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    "$RENDER" "$@" > "$OUT/ncu_$name.txt" 2>&1
  echo "== $name: $(grep -E 'Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per Thread|Duration' "$OUT/ncu_$name.txt" | tr -s ' ' | tr '\n' ';')"
}
prof tiled_shade_rand100k shade_tiles --scene rand100k -r tiled --frames 0:2
prof persistent_shade_rand100k shade_tiles --scene rand100k -r persistent --frames 0:2
prof tiled_shade_rand1M shade_tiles --scene rand1M -r tiled --frames 0:2
prof naive_shade_rand10k shade_naive --scene rand10k -r naive --frames 0:2
prof bin_fill_biglittle bin_fill --scene biglittle -r tiled --frames 0:2
prof sort_rand1M 'Onesweep|onesweep' --scene rand1M -r tiled --frames 0:2
