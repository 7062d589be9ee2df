#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck, synccheck and initcheck on every
# correct kernel, for a set of small scenes at an odd size (partial tiles),
# through both the direct and the binned path. Run on a CUDA machine from the
# repo root:  RENDER=build/render bash scripts/gpu_sanitize.sh
# Prints one line per run and a summary; exits 1 if any tool reports an error.
# SANITIZE_TOOLS and SANITIZE_SCENES (scene@START:END ...) narrow the set.
set -u
RENDER=${RENDER:-build/render}
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
fail=0; runs=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  for k in naive tiled persistent; do
    for spec in ${SANITIZE_SCENES:-rgb@0:1 rand10k@0:1 file:scenes/examples/snow_small.txt@0:2 fireworks@0:3 pattern@0:1}; do
      set -- ${spec/@/ }
      scene_arg=(--scene "$1"); [ "${1#file:}" != "$1" ] && scene_arg=(--scene-file "${1#file:}")
      for opts in "" "direct=0,batch=20000"; do
        [ "$k" = naive ] && [ -n "$opts" ] && continue
        runs=$((runs + 1))
        out=$(CR_CUDA_OPTIONS=$opts timeout 300 $CS --tool $tool --error-exitcode 99 "$RENDER" "${scene_arg[@]}" -r $k --size 96x80 --frames $2 2>&1)
        rc=$?
        summary=$(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
        printf '%-9s %-10s %-14s %-22s rc=%d %s\n' $tool $k ${1##*/} "${opts:-direct}" $rc "$summary"
        if [ $rc -ne 0 ]; then fail=1; echo "$out" | head -30; fi
      done
    done
  done
done
echo "compute-sanitizer: $runs runs, $([ $fail = 0 ] && echo 'all clean' || echo 'ERRORS found')"
exit $fail
