#!/usr/bin/env bash
# Runs the GUI app (circle-renderer) on a headless GPU machine that has the
# NVIDIA driver but no X server, GLFW or Mesa, from the files carried in .gl/:
#   .gl/*.deb        glvnd loader libraries (libGL, libGLX, libGLdispatch, ...) -> unpacked into /
#   .gl/debs/*.deb   Xvfb, xkbcomp, xkb-data, Mesa swrast (server-side GLX of Xvfb), glxinfo,
#                    GLFW, stb, libgomp, X client libraries      -> unpacked into $OPTX (/opt/x)
#   .gl/stubs/       libLLVM-15.so.1 stub (Mesa's swrast runs as softpipe, no LLVM needed)
#   .gl/circle-renderer  the app binary (CUDA runtime linked statically; libcuda from the driver)
# Make .gl/ with: bash scripts/make_gui_bundle.sh (after building build/app/circle-renderer)
# Usage, from the repository root:  OUT=/some/dir bash scripts/gui_on_gpu.sh
# Knobs (defaults are for the GPU machine): OPTX=/opt/x DISPLAY_NUM=99 GLX_VENDOR=nvidia
#   RENDERER=tiled SNOW_FRAMES=600 RAND_FRAMES=300 APP_EXTRA="" (e.g. "--window-height 1100")
#   RESIZE_RUN=1 (0 skips the run with window resizes between frames)
#   RUNS="snow rand100k ..." runs the app on these scenes in turn instead (FRAMES frames each, at most
#   RUN_LIMIT_S seconds; logs gui_<scene><n>.txt)
#   WORKBENCH_RUN=1 runs app/workbench_test.sh gpu (the student's workbench on the harness's fixtures:
#   rebuild on save, speed, racy, hang, out_of_bounds) instead of the runs above; it needs nvcc on the
#   machine and .gl/render-student-worker (make_gui_bundle.sh copies it, and .gl/gui_shot_check, if built);
#   its logs and screenshots go to $OUT/workbench/; WORKBENCH_MODE=speed (or hang) runs only that run
# Whole run is bounded to ~145 s (GUI_DEADLINE_S=140 by default); Xvfb is always killed at the end.
#   FIXTURES=DIR (the assembled fixtures, e.g. .dev/students) adds the workbench's speed run (rand100k).
set -u
DEADLINE=$((SECONDS + ${GUI_DEADLINE_S:-140}))
OUT=${OUT:?set OUT to an output folder}
GL=${GL_DIR:-$PWD/.gl}
X=${OPTX:-/opt/x}
DN=${DISPLAY_NUM:-99}
VENDOR=${GLX_VENDOR:-nvidia}
RENDERER=${RENDERER:-tiled}
SNOW_FRAMES=${SNOW_FRAMES:-600}
RAND_FRAMES=${RAND_FRAMES:-300}
APP_EXTRA=${APP_EXTRA:-}
MA=x86_64-linux-gnu
mkdir -p "$OUT" "$X"
SUMMARY=()
note() { echo "== $*"; SUMMARY+=("$*"); }
# seconds for a step: min(wanted, time left before the deadline), at least 1
budget() { local l=$((DEADLINE - SECONDS)); [ "$l" -lt 1 ] && l=1; [ "$1" -lt "$l" ] && l=$1; echo "$l"; }

XPID=""; MADE_XKB_LINK=0
cleanup() {
    if [ -n "$XPID" ] && kill -0 "$XPID" 2>/dev/null; then
        kill "$XPID" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$XPID" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$XPID" 2>/dev/null
        wait "$XPID" 2>/dev/null
    fi
    XPID=""
    [ "$MADE_XKB_LINK" = 1 ] && rm -f /usr/bin/xkbcomp && MADE_XKB_LINK=0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- 1. unpack
echo "== step 1: unpack ($(date +%T))"
n=0
for f in "$GL"/*.deb; do
    [ -e "$f" ] || continue
    timeout "$(budget 20)" dpkg -x "$f" / || echo "dpkg -x $f / failed"
    n=$((n + 1))
done
timeout "$(budget 20)" ldconfig || echo "ldconfig failed"
m=0
for f in "$GL"/debs/*.deb; do
    timeout "$(budget 20)" dpkg -x "$f" "$X" || echo "dpkg -x $f $X failed"
    m=$((m + 1))
done
cp -f "$GL"/stubs/*.so* "$X/usr/lib/$MA/"
# libGL/libGLX/libGLdispatch/libEGL/libOpenGL must be glvnd's from /, never a copy under $X
rm -f "$X"/usr/lib/$MA/lib{GL,GLX,GLdispatch,EGL,OpenGL,GLESv2,GLESv1_CM}.so* "$X"/lib/$MA/lib{GL,GLX,GLdispatch}.so*
echo "unpacked $n glvnd debs into /, $m debs into $X ($(du -sh "$X" 2>/dev/null | cut -f1))"
echo "-- ls /usr/local/nvidia/lib*:"; ls /usr/local/nvidia/lib* 2>&1 | head
echo "-- ldconfig -p | grep -i nvidia:"; ldconfig -p | grep -i nvidia | head
echo "-- glvnd vendor files:"; ls /usr/local/nvidia/share/glvnd/egl_vendor.d /usr/share/glvnd/egl_vendor.d /etc/glvnd/egl_vendor.d 2>/dev/null | head
echo "-- glibc: $(ldd --version 2>&1 | head -1)"

NV=/usr/local/nvidia/lib64:/usr/local/nvidia/lib
SYS=/usr/lib/$MA:/lib/$MA:/usr/lib64:/usr/lib
CAR=$X/usr/lib/$MA:$X/lib/$MA
export PATH=/usr/local/nvidia/bin:$PATH:$X/usr/bin:$X/bin
if ! ls /usr/share/glvnd/egl_vendor.d/*nvidia* /etc/glvnd/egl_vendor.d/*nvidia* >/dev/null 2>&1 &&
    [ -e /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
APP=$GL/circle-renderer
GLXINFO=$X/usr/bin/glxinfo.$MA
CHECK=("$X/usr/bin/Xvfb" "$X/usr/bin/xkbcomp" "$GLXINFO" "$APP" "$X/usr/lib/$MA/dri/swrast_dri.so"
    "$X/usr/lib/$MA/libglfw.so.3" "$X/usr/lib/$MA/libGLX_mesa.so.0")
missing() { # $1: LD_LIBRARY_PATH to try; prints unresolved libraries
    local f
    for f in "${CHECK[@]}"; do
        LD_LIBRARY_PATH=$1 timeout 10 ldd "$f" 2>&1 | grep -E 'not found|No such' | grep -v 'weak version' | sed "s|^|$(basename "$f"): |"
    done
}
# driver and system libraries first; the carried ones only where the system lacks them.
# If that leaves a library (or a symbol version) unresolved, put the carried ones before the system's.
LLP=$NV:$SYS:$CAR
miss=$(missing "$LLP")
if [ -n "$miss" ]; then
    echo "-- unresolved with system libs first:"; echo "$miss"
    LLP2=$NV:$CAR:$SYS
    miss2=$(missing "$LLP2")
    if [ "$(echo -n "$miss2" | grep -c .)" -lt "$(echo -n "$miss" | grep -c .)" ]; then
        LLP=$LLP2; miss=$miss2; echo "-- using carried libs before system libs"
    fi
fi
[ -n "$miss" ] && note "unresolved libraries: $(echo "$miss" | tr '\n' ';')"
export LD_LIBRARY_PATH=$LLP
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
# Debian 12's libexpat (used by Mesa) calls arc4random_buf, new in glibc 2.36; the carried copy
# has that requirement made weak, and on an older glibc this shim provides the function.
gv=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/[^0-9.]//g'); gminor=${gv#*.}; gminor=${gminor%%.*}
if [ "${FORCE_ARC4_SHIM:-0}" = 1 ] || { [ -n "$gminor" ] && [ "$gminor" -lt 36 ]; }; then
    export LD_PRELOAD=$X/usr/lib/$MA/libcr_arc4shim.so${LD_PRELOAD:+:$LD_PRELOAD}
    echo "glibc $gv: LD_PRELOAD=$LD_PRELOAD"
fi

# ---------------------------------------------------------------- 2. Xvfb
echo "== step 2: Xvfb :$DN ($(date +%T))"
if [ ! -e /usr/bin/xkbcomp ]; then  # Xvfb runs xkbcomp from its compiled-in /usr/bin
    ln -s "$X/usr/bin/xkbcomp" /usr/bin/xkbcomp && MADE_XKB_LINK=1
fi
if [ -e /tmp/.X$DN-lock ]; then
    p=$(tr -dc 0-9 < /tmp/.X$DN-lock)
    if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then echo "display :$DN is in use by pid $p"
    else rm -f /tmp/.X$DN-lock /tmp/.X11-unix/X$DN; fi
fi
# Xvfb's own GLX uses Mesa's swrast driver as softpipe (no LLVM: libLLVM is a stub)
LIBGL_DRIVERS_PATH=$X/usr/lib/$MA/dri GALLIUM_DRIVER=softpipe DRAW_USE_LLVM=0 \
    timeout "$(budget 140)" "$X/usr/bin/Xvfb" :"$DN" -screen 0 1280x1100x24 -nolisten tcp \
    -xkbdir "$X/usr/share/X11/xkb" > "$OUT/xvfb.log" 2>&1 &
XPID=$!
xok=0
for _ in $(seq 1 75); do  # up to 15 s
    kill -0 "$XPID" 2>/dev/null || break
    if [ -S /tmp/.X11-unix/X$DN ]; then xok=1; break; fi
    sleep 0.2
done
sleep 0.5
kill -0 "$XPID" 2>/dev/null || xok=0
if [ "$xok" = 1 ]; then note "Xvfb :$DN up (pid $XPID)"; else note "Xvfb FAILED to start (see xvfb.log)"; fi
echo "-- xvfb.log:"; head -30 "$OUT/xvfb.log"

# ---------------------------------------------------------------- 3. glxinfo and the app
export DISPLAY=:$DN __GLX_VENDOR_LIBRARY_NAME=$VENDOR
if [ "$VENDOR" = mesa ]; then  # client-side Mesa (local check / fallback): softpipe, no LLVM
    export LIBGL_DRIVERS_PATH=$X/usr/lib/$MA/dri GALLIUM_DRIVER=softpipe DRAW_USE_LLVM=0
fi
echo "== step 3: glxinfo -B, vendor $VENDOR ($(date +%T))"
timeout "$(budget 20)" "$GLXINFO" -B > "$OUT/glxinfo.txt" 2>&1
rc=$?
cat "$OUT/glxinfo.txt" | head -40
note "glxinfo exit $rc: $(grep -E 'OpenGL renderer string|direct rendering' "$OUT/glxinfo.txt" | tr '\n' ' ')"

run_app() { # scene frames max_seconds
    local scene=$1 frames=$2 t
    t=$(budget "$3")
    echo "== app: $scene, $frames frames, $RENDERER, limit ${t}s ($(date +%T))"
    # shellcheck disable=SC2086
    timeout -k 3 "$t" "$APP" --scene "$scene" --renderer "$RENDERER" --size 1024 --frames "$frames" --no-vsync \
        --screenshot "$OUT/gui_$scene${TAG:-}.png" $APP_EXTRA > "$OUT/gui_$scene${TAG:-}.txt" 2>&1
    local r=$?
    cat "$OUT/gui_$scene${TAG:-}.txt" | tail -25
    local fps
    fps=$(grep -E 'FPS$' "$OUT/gui_$scene${TAG:-}.txt" | tail -1)
    note "app $scene exit $r${fps:+: $fps}"
    [ "$r" = 124 ] && note "app $scene TIMED OUT after ${t}s"
}
# Render-size changes between frames: --size window with the window resized every 2 frames
# (app_options.h kResizeCycle, down to a 1x240 image); --check compares each new size's first
# frame and the last frame with cpuref. Check the final window against the frame afterwards with
# gui_shot_check gui_resize_shot.png gui_resize_frame.png (not carried here).
run_resize() { # max_seconds
    local t r
    t=$(budget "$1")
    echo "== app: resize run, snow, $RENDERER, limit ${t}s ($(date +%T))"
    timeout -k 3 "$t" "$APP" --scene snow --renderer "$RENDERER" --size window --frames 14 --resize-every 2 \
        --check --no-vsync --screenshot "$OUT/gui_resize_shot.png" --dump-frame "$OUT/gui_resize_frame.png" \
        > "$OUT/gui_resize.txt" 2>&1
    r=$?
    cat "$OUT/gui_resize.txt" | tail -25
    note "app resize run exit $r: $(grep -E '^check: [0-9]+ of' "$OUT/gui_resize.txt")"
}
# The student's workbench (app/workbench_test.sh gpu); builds go to a scratch folder, logs and
# screenshots to $OUT/workbench.
run_workbench() { # max_seconds
    local t r work=/tmp/cr_workbench checker=""
    t=$(budget "$1")
    [ -x "$GL/gui_shot_check" ] && checker=$GL/gui_shot_check
    echo "== app: workbench test, limit ${t}s ($(date +%T))"
    APP=$APP CHECKER=$checker WORK=$work RUN="" FIXTURES=${FIXTURES:-} timeout -k 3 "$t" bash app/workbench_test.sh "${WORKBENCH_MODE:-gpu}" \
        > "$OUT/workbench.txt" 2>&1
    r=$?
    mkdir -p "$OUT/workbench"
    cp -f "$work"/*.txt "$work"/*.png "$OUT/workbench/" 2>/dev/null
    grep -v '^workbench: compiler: ' "$OUT/workbench.txt" | tail -60
    note "workbench test exit $r: $(grep -E '^workbench test|longest frame gap during the rebuild' "$OUT/workbench.txt" | tr '\n' ' ')"
}
if [ "$xok" = 1 ] && [ "${WORKBENCH_RUN:-0}" = 1 ]; then
    run_workbench $(( ${GUI_DEADLINE_S:-140} - 10 ))
elif [ "$xok" = 1 ]; then
    [ "${RESIZE_RUN:-1}" = 1 ] && run_resize 40
    if [ -n "${RUNS:-}" ]; then  # RUNS="scene scene ...": FRAMES frames each, RUN_LIMIT_S seconds at most
        i=0
        for scene in $RUNS; do i=$((i + 1)); TAG=$i run_app "$scene" "${FRAMES:-600}" "${RUN_LIMIT_S:-50}"; done
    else
        run_app snow "$SNOW_FRAMES" 50
        run_app rand100k "$RAND_FRAMES" 50
    fi
fi

# ---------------------------------------------------------------- 4. summary
cleanup
echo
echo "================ summary (${SECONDS}s) ================"
for s in "${SUMMARY[@]}"; do echo "$s"; done
echo "The app prints the display path (CUDA-GL interop or host copy) only in its panel ('display: ...'),"
echo "so see it in the screenshots $OUT/gui_*.png; stderr lines above would show CUDA errors."
ls -la "$OUT"
