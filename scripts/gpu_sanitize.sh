#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on every
# correct kernel, for a set of small scenes at an odd size (partial tiles),
# through the direct path and every binning path (bin.compact; sorted with
# batches, with speculation forced to redo frames, with 4x4-tile bins and
# bin.split; the counting sort on single tiles and on 2x2 and 4x4 bins
# before bin.split; row culling; strip masks), and on tiled's teaching variants. Run on a CUDA machine from the repo root:
#   RENDER=build/render bash scripts/gpu_sanitize.sh
# Prints one line per run and a summary; exits 1 if any tool reports an error.
# Narrow the set with SANITIZE_TOOLS, SANITIZE_KERNELS, SANITIZE_SCENES
# (scene@START:END or file:PATH@START:END ...), SANITIZE_OPTIONS
# (CR_CUDA_OPTIONS sets for the binned kernels; "default" = none) and
# SANITIZE_VARIANTS (extra option sets for tiled only).
set -u
RENDER=${RENDER:-build/render}
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
KERNELS=${SANITIZE_KERNELS:-naive tiled persistent ftb}
OPTIONS=${SANITIZE_OPTIONS:-default direct=0,batch=20000 bins=sort,direct=0,spec=tight,count=off bins=sort,direct=0,coarse=4,count=off rowcull=on,coarse=2,bins=sort,direct=0,count=off strips=on,coarse=1,bins=sort,direct=0,count=off count=on,bins=sort,direct=0,coarse=1,spec=tight count=on,bins=sort,direct=0,coarse=1,chunks=32,strips=on count=on,bins=sort,direct=0,coarse=4,spec=tight}
VARIANTS=${SANITIZE_VARIANTS-fill=thread list=split cull=warp scan=shuffle}
fail=0; runs=0; clean=0

# The option sets kernel $1 runs with: naive has no binning to vary.
options_for() {
  case $1 in
    naive) echo default ;;
    tiled) echo $OPTIONS $VARIANTS ;;
    *) echo $OPTIONS ;;
  esac
}

for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  for k in $KERNELS; do
    for spec in ${SANITIZE_SCENES:-rgb@0:1 rand10k@0:2 file:scenes/examples/snow_small.txt@0:2 fireworks@0:3 pattern@0:1}; do
      set -- ${spec/@/ }
      scene_arg=(--scene "$1"); [ "${1#file:}" != "$1" ] && scene_arg=(--scene-file "${1#file:}")
      for opts in $(options_for $k); do
        [ "$opts" = default ] && opts=
        runs=$((runs + 1))
        out=$(CR_CUDA_OPTIONS=$opts timeout 300 $CS --tool $tool --error-exitcode 99 "$RENDER" "${scene_arg[@]}" -r $k --size 96x80 --frames $2 2>&1)
        rc=$?
        summary=$(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
        printf '%-9s %-10s %-14s %-22s rc=%d %s\n' $tool $k ${1##*/} "${opts:-direct}" $rc "$summary"
        if [ $rc -ne 0 ]; then fail=1; echo "$out" | head -30; else clean=$((clean + 1)); fi
      done
    done
  done
done
echo "compute-sanitizer: $clean of $runs runs clean$([ $fail = 0 ] || echo ', ERRORS found')"
exit $fail
