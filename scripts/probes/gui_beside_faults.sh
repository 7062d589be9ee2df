#!/usr/bin/env bash
# Issue 29: the GUI window (no student loaded; tiled on the GPU through
# interop, under Xvfb) beside processes of its own that fault or hang on the
# same GPU (scripts/probes/stall_probe.cu): says whether the window's
# 4.4-4.6 s stall comes from any process's fault or hang on the GPU, or from
# the workbench's handling of its own worker.
# By default run 1 (snow): a control run with nothing beside it; run 2
# (snow): a fault (error 700) 4 s in, the process exiting by itself; run 3
# (rand100k): a kernel that never ends, started 4 s in and killed with
# SIGKILL 2 s later (EVENTS="none fault hang").
# The app prints a progress line every 5 s (frames/s, mean phase ms, longest
# frame), so a run cut short by its time limit still shows where it waited.
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
    case $what in
    none) echo "== control run: nothing beside it" ;;
    fault) echo "== fault at $(now)"; "$P" fault exit; echo "   exited at $(now)" ;;
    hang) echo "== hang at $(now)"; "$P" hang & local h=$!; sleep 2; echo "   kill -9 at $(now)"; kill -9 $h; wait $h 2>/dev/null; echo "   reaped at $(now)" ;;
    esac
}
# EVENTS: one app run each, in this order (a fault leaves the window's GL stalled
# for long after it, so EVENTS="none hang" on a fresh machine tests the hang alone)
EVENTS=${EVENTS:-none fault hang}
runs=""; n=0
for e in $EVENTS; do n=$((n + 1)); runs="$runs $([ "$e" = hang ] && echo rand100k || echo snow)"; done
( n=0; for e in $EVENTS; do n=$((n + 1)); beside $n "$e"; done ) > "$OUT/events.txt" 2>&1 &
FRAMES=${FRAMES:-2000} RUNS="$runs" RUN_LIMIT_S=${RUN_LIMIT_S:-30} RESIZE_RUN=0 \
    bash "$(dirname "$0")/../gui_on_gpu.sh"
wait
cat "$OUT/events.txt"
for f in "$OUT"/gui_*.txt; do echo "-- $f"; grep -h "progress\|longest\|FPS$" "$f"; done
