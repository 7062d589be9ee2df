#!/usr/bin/env bash
# Everything the GPU issues ask for, in one pass on the H200 (device tool):
# GPU unit tests, `render --check` of every scene x kernel, compute-sanitizer,
# big scenes with peak memory, the out-of-memory path, and `render bench`.
# Expects the binaries and their shared libraries in .dev/; logs go to $OUT.
set -u
export LD_LIBRARY_PATH=$PWD/.dev:${LD_LIBRARY_PATH:-} CR_REFERENCE_DIR=$PWD/reference_images
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=./.dev/render
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
# 1. sanitizers, one tool per background job (they only need correctness)
for t in memcheck racecheck synccheck initcheck; do
  SANITIZE_TOOLS=$t SANITIZE_SCENES="rgb@0:1 rand10k@0:1 file:scenes/examples/snow_small.txt@0:2 fireworks@0:3" RENDER=$R \
    bash scripts/gpu_sanitize.sh > "$OUT/sanitize_$t.txt" 2>&1 &
done
wait
tail -n 1 "$OUT"/sanitize_*.txt
# 2. render --check for every scene and kernel at 1024x1024 (three kernels in parallel)
for k in naive tiled persistent; do
  ( for s in rgb rgby rand10k rand100k rand1M biglittle littlebig pattern micro2M bouncingballs fireworks hypnosis snow snowsingle; do
      if [ $k = naive ] && [ "$s" = rand1M -o "$s" = micro2M ]; then continue; fi
      $R --scene $s -r $k --check > "$OUT/tmp_${k}_$s.txt" 2>&1; echo "$k $s rc=$? $(grep -E '^(PASS|FAIL)$' "$OUT/tmp_${k}_$s.txt")"
    done ) > "$OUT/check_$k.txt" &
done
wait
cat "$OUT"/check_*.txt > "$OUT/checks.txt"; rm -f "$OUT"/tmp_* "$OUT"/check_*.txt
grep -c "rc=0 PASS" "$OUT/checks.txt"; grep -v "rc=0 PASS" "$OUT/checks.txt"
# 3. GPU unit tests
timeout 240 ./.dev/gpu_tests --gtest_brief=1 > "$OUT/gpu_tests.txt" 2>&1; tail -n 3 "$OUT/gpu_tests.txt"
# 4. big scenes: peak device memory, and the out-of-memory message (exit 4)
( for spec in "rand1M 4096" "micro2M 4096" "rand10M 1024" "rand10M 4096"; do set -- $spec
    $R --scene $1 -r tiled --size $2 --json "$OUT/big.json" >/dev/null 2>&1; echo "$1 $2 rc=$? $(grep -o '"peak_device_bytes": [0-9]*' "$OUT/big.json") total_ms=$(grep -o '"total_ms": [0-9.]*' "$OUT/big.json")"
  done
  CR_CUDA_OPTIONS=memlimit_mib=64 $R --scene rand1M -r tiled --size 2048; echo "memlimit rc=$?" ) > "$OUT/big.txt" 2>&1
cat "$OUT/big.txt"
# 5. benchmarks
$R bench --repeat 5 --renderers tiled,persistent,naive --scenes rgb,rgby,rand10k,rand100k,pattern,biglittle,littlebig,snowsingle \
  --json "$OUT/bench_small.json" > "$OUT/bench_small.txt" 2>/dev/null
$R bench --repeat 5 --renderers tiled,persistent --scenes rand1M,micro2M --json "$OUT/bench_big.json" > "$OUT/bench_big.txt" 2>/dev/null
$R bench --repeat 1 --frames 0:1 --renderers cpuref,cpu --scenes rand10k,rand100k,biglittle --json "$OUT/bench_cpu.json" > "$OUT/bench_cpu.txt" 2>/dev/null
head -n 30 "$OUT/bench_small.txt" | tail -n 26; head -n 9 "$OUT/bench_big.txt" | tail -n 5; head -n 12 "$OUT/bench_cpu.txt" | tail -n 8
