#!/usr/bin/env bash
# Quick GPU checks on the device machine: run from the repo root with the
# binaries in .dev/ (render, gpu_tests and the shared libraries they need).
set -u
export LD_LIBRARY_PATH=$PWD/.dev:${LD_LIBRARY_PATH:-}
export CR_REFERENCE_DIR=$PWD/reference_images
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi -L
for k in naive tiled persistent; do
  for s in rgb rgby rand10k pattern biglittle snowsingle; do
    ./.dev/render --scene $s -r $k --size 512 --check > "$OUT/check_${k}_${s}.txt" 2>&1
    echo "$k $s exit $? $(grep -E '^(PASS|FAIL)' "$OUT/check_${k}_${s}.txt")"
  done
done
./.dev/render bench --scenes "${BENCH_SCENES:-rgb,rgby,rand10k,rand100k,rand1M,biglittle,littlebig,pattern,micro2M}" \
  --renderers "${BENCH_RENDERERS:-tiled,persistent}" --repeat 3 --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.txt" | tail -40
