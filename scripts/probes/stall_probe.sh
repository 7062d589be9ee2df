#!/usr/bin/env bash
# Runs scripts/probes/stall_probe.cu's experiment on a GPU machine (issue 29):
# a bystander process's longest gaps while another process faults and exits,
# faults and resets, faults and is killed, and hangs and is killed. Each
# event's wall-clock time is printed next to the bystander's gaps.
set -u
P=${PROBE:-/tmp/stall_probe}
nvcc -O2 -arch=sm_90 "$(dirname "$0")/stall_probe.cu" -o "$P" || exit 3
now() { date +%s.%N | cut -c1-14; }
"$P" bystander 45 & B=$!
sleep 2
for after in exit reset; do echo "== fault $after at $(now)"; "$P" fault $after; echo "   ended at $(now)"; sleep 4; done
echo "== fault wait at $(now)"; "$P" fault wait & F=$!; sleep 1; echo "   kill -9 at $(now)"; kill -9 $F; wait $F 2>/dev/null; echo "   reaped at $(now)"; sleep 4
echo "== hang at $(now)"; "$P" hang & H=$!; sleep 2; echo "   kill -9 at $(now)"; kill -9 $H; wait $H 2>/dev/null; echo "   reaped at $(now)"; sleep 4
echo "== hang, SIGTERM at 2 s"; "$P" hang & H=$!; sleep 2; echo "   kill -TERM at $(now)"; kill -TERM $H; wait $H 2>/dev/null; echo "   reaped at $(now)"
wait $B
