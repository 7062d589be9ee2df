#!/usr/bin/env bash
# Issue 29: the GUI window (no student loaded; tiled on the GPU through
# interop, under Xvfb) beside processes of its own that fault or hang on the
# same GPU (scripts/probes/stall_probe.cu): the app's printed longest gap
# says whether the window's 4.4-4.6 s stall comes from any process's fault
# or hang on the GPU, or from the workbench's handling of its own worker.
# Run 1 (snow): a fault (error 700), the process exiting by itself; run 2
# (rand100k): a kernel that never ends, killed with SIGKILL after 2 s.
# Needs .gl/ (scripts/make_gui_bundle.sh) and nvcc; OUT as for gui_on_gpu.sh.
set -u
P=/tmp/stall_probe
nvcc -O2 -arch=sm_90 "$(dirname "$0")/stall_probe.cu" -o "$P" || exit 3
now() { date +%s.%N | cut -c1-14; }
beside() {  # waits for the app's Nth start, then runs one event a few seconds in
    local n=$1 what=$2 seen=0 pid
    while [ "$seen" -lt "$n" ]; do
        pid=$(pgrep -n -f '/circle-renderer --scene' || true)
        if [ -n "$pid" ]; then seen=$((seen + 1)); [ "$seen" -lt "$n" ] && while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done; fi
        sleep 0.2
    done
    sleep 4
    if [ "$what" = fault ]; then echo "== fault at $(now)"; "$P" fault exit
    else echo "== hang at $(now)"; "$P" hang & local h=$!; sleep 2; echo "   kill -9 at $(now)"; kill -9 $h; wait $h 2>/dev/null; echo "   reaped at $(now)"; fi
}
( beside 1 fault; beside 2 hang ) > "$OUT/events.txt" 2>&1 &
SNOW_FRAMES=${SNOW_FRAMES:-2500} RAND_FRAMES=${RAND_FRAMES:-2500} RESIZE_RUN=0 bash "$(dirname "$0")/../gui_on_gpu.sh"
wait
cat "$OUT/events.txt"
grep -h "longest gap\|FPS$" "$OUT"/gui_*.txt
