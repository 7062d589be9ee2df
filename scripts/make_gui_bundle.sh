#!/usr/bin/env bash
# Makes .gl/, the bundle that scripts/gui_on_gpu.sh carries to a headless GPU machine, on a
# Debian 12 (bookworm, amd64) machine with network access to the Debian archive:
#   .gl/*.deb          the 7 glvnd loader debs (libGL, libGLX, libGLdispatch, libEGL, ...)
#   .gl/debs/*.deb     Xvfb, xkbcomp, Mesa swrast, glxinfo, GLFW, stb, libgomp, X client libs
#                      (the list DEBS below), plus libexpat1 repacked as <version>+crpatch: its
#                      arc4random_buf@GLIBC_2.36 reference is made unversioned and the GLIBC_2.36
#                      requirement weak (scripts/gui_bundle/elfver.py), so it loads on older glibc
#   .gl/stubs/         libLLVM-15.so.1 stub and libcr_arc4shim.so, built with gcc from the
#                      sources in scripts/gui_bundle/ (the sources are copied next to them)
#   .gl/circle-renderer  a copy of build/app/circle-renderer (build it first)
#   .gl/render-student-worker, .gl/gui_shot_check  copies of build/render-student-worker (runs a
#                      student's renderer for the GUI's workbench) and build/app/gui_shot_check, when built
# Usage, from anywhere (needs root for apt-get update into /tmp/amd64):
#   bash scripts/make_gui_bundle.sh
# Knobs: GL_DIR (default <repo>/.gl), APT_LISTS (default /tmp/amd64), APP (default build/app/circle-renderer).
# Idempotent: debs already present with the archive's SHA256 are kept, missing ones are downloaded,
# .deb files that are no longer wanted are removed; libexpat1 and the stubs are rebuilt each run
# (deterministically: the same bytes each time).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GL=${GL_DIR:-$ROOT/.gl}
SRC=$ROOT/scripts/gui_bundle
APP=${APP:-$ROOT/build/app/circle-renderer}
LISTS=${APT_LISTS:-/tmp/amd64}
# amd64-only package lists of our own, so the host's apt configuration (extra architectures,
# its own lists) does not matter; no binary cache files, so the host's apt cache is not touched.
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$LISTS"
    -oDir::Cache::pkgcache= -oDir::Cache::srcpkgcache=)

# glvnd loader libraries, unpacked into / on the GPU machine
GLVND=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# unpacked into $OPTX (/opt/x) on the GPU machine (libexpat1 is added, repacked, separately)
DEBS=(
    libaudit1 libbrotli1 libbsd0 libbz2-1.0 libcap-ng0 libcap2 libdrm-amdgpu1 libdrm-intel1
    libdrm-nouveau2 libdrm-radeon1 libdrm2 libelf1 libfontenc1 libfreetype6 libgcrypt20
    libgl1-mesa-dri libglapi-mesa libglfw3 libglx-mesa0 libgomp1 libgpg-error0 liblz4-1 liblzma5
    libmd0 libpciaccess0 libpcre2-8-0 libpixman-1-0 libpng16-16 libselinux1 libsensors5 libstb0
    libsystemd0 libunwind8 libx11-6 libx11-data libx11-xcb1 libxau6 libxcb-dri2-0 libxcb-dri3-0
    libxcb-glx0 libxcb-present0 libxcb-randr0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb1
    libxcursor1 libxdmcp6 libxext6 libxfixes3 libxfont2 libxi6 libxinerama1 libxkbfile1 libxrandr2
    libxrender1 libxshmfence1 libxxf86vm1 libzstd1 mesa-utils-bin x11-xkb-utils xkb-data xvfb
)
EXPAT_LIB=lib/x86_64-linux-gnu/libexpat.so.1.8.10
EXPAT_SYMS=(arc4random_buf)

say() { echo "make_gui_bundle: $*"; }
die() { echo "make_gui_bundle: ERROR: $*" >&2; exit 1; }

# ---------------------------------------------------------------- checks (before touching .gl)
[ -x "$APP" ] || die "$APP not found: build build/app/circle-renderer first"
for t in apt-get dpkg-deb gcc python3 readelf sha256sum md5sum; do
    command -v "$t" >/dev/null || die "$t is needed"
done
for f in arc4shim.c elfver.py llvm_stub.c llvm.map; do
    [ -f "$SRC/$f" ] || die "$SRC/$f missing"
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

say "apt-get update into $LISTS"
mkdir -p "$LISTS/partial"
apt-get "${o[@]}" update > "$TMP/update.log" 2>&1 || { cat "$TMP/update.log" >&2; die "apt-get update failed"; }

# fetch DIR PKG...: make DIR hold exactly the current archive debs of PKG... (other .deb files
# in DIR are removed, except those named in KEEP_EXTRA). Prints what it kept/downloaded/removed.
KEEP_EXTRA=""
fetch() {
    local dir=$1; shift
    mkdir -p "$dir"
    apt-get "${o[@]}" download --print-uris "$@" > "$TMP/uris" || die "apt-get --print-uris $* failed"
    [ "$(grep -c . "$TMP/uris")" = "$#" ] || die "expected $# packages, apt listed $(grep -c . "$TMP/uris")"
    local want=() need=() file hash kept=0
    while read -r _ file _ hash; do
        want+=("$file")
        if [ -f "$dir/$file" ] && [ "$(sha256sum "$dir/$file" | cut -d' ' -f1)" = "${hash#SHA256:}" ]; then
            kept=$((kept + 1))
        else
            need+=("${file%%_*}")
        fi
    done < "$TMP/uris"
    if [ "${#need[@]}" -gt 0 ]; then
        say "downloading into $dir: ${need[*]}"
        (cd "$dir" && apt-get "${o[@]}" download "${need[@]}") > "$TMP/dl.log" 2>&1 ||
            { cat "$TMP/dl.log" >&2; die "apt-get download failed"; }
    fi
    while read -r _ file _ hash; do  # everything now there, with the archive's hash
        [ "$(sha256sum "$dir/$file" | cut -d' ' -f1)" = "${hash#SHA256:}" ] || die "$dir/$file: bad SHA256"
    done < "$TMP/uris"
    local f b removed=0
    local -A keep=()
    for b in "${want[@]}" $KEEP_EXTRA; do keep[$b]=1; done
    for f in "$dir"/*.deb; do
        [ -e "$f" ] || continue
        b=$(basename "$f")
        [ -n "${keep[$b]:-}" ] && continue
        rm -f "$f"; say "removed stale $f"; removed=$((removed + 1))
    done
    say "$dir: ${#want[@]} debs ($kept kept, ${#need[@]} downloaded, $removed stale removed)"
}

mkdir -p "$GL/debs" "$GL/stubs"

# ---------------------------------------------------------------- 1. glvnd loader debs -> .gl/
fetch "$GL" "${GLVND[@]}"

# ---------------------------------------------------------------- 2. libexpat1, repacked
apt-get "${o[@]}" download --print-uris libexpat1 > "$TMP/expat.uri"
read -r _ EXPAT_DEB _ EXPAT_HASH < "$TMP/expat.uri"
PATCHED=${EXPAT_DEB%_amd64.deb}+crpatch_amd64.deb
(cd "$TMP" && apt-get "${o[@]}" download libexpat1) > "$TMP/dl.log" 2>&1 ||
    { cat "$TMP/dl.log" >&2; die "apt-get download libexpat1 failed"; }
[ "$(sha256sum "$TMP/$EXPAT_DEB" | cut -d' ' -f1)" = "${EXPAT_HASH#SHA256:}" ] || die "$EXPAT_DEB: bad SHA256"
dpkg-deb -R "$TMP/$EXPAT_DEB" "$TMP/expat"
epoch=$(stat -c %Y "$TMP/expat/$EXPAT_LIB")  # the library's mtime in the original deb
python3 "$SRC/elfver.py" "$TMP/expat/$EXPAT_LIB" "${EXPAT_SYMS[@]}" | sed 's/^/  elfver: /'
readelf -V "$TMP/expat/$EXPAT_LIB" | grep -q 'GLIBC_2.36  Flags: WEAK' || die "libexpat patch did not take"
# the md5sums line of the patched library; control, version and everything else stay as they are
sum=$(cd "$TMP/expat" && md5sum "$EXPAT_LIB")
awk -v lib="$EXPAT_LIB" -v line="$sum" '$2 == lib { print line; next } { print }' \
    "$TMP/expat/DEBIAN/md5sums" > "$TMP/md5sums" && cat "$TMP/md5sums" > "$TMP/expat/DEBIAN/md5sums"
rm -f "$GL/debs/$PATCHED"
# SOURCE_DATE_EPOCH: what this run touched gets the original library's mtime (dpkg-deb clamps), so
# the repacked deb is the same byte for byte on every run (control, version: the original's)
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz -b "$TMP/expat" "$GL/debs/$PATCHED" > /dev/null
say "repacked $EXPAT_DEB -> $GL/debs/$PATCHED (${EXPAT_SYMS[*]} unversioned, GLIBC_2.36 weak)"

# ---------------------------------------------------------------- 3. the other debs -> .gl/debs/
KEEP_EXTRA=$PATCHED
fetch "$GL/debs" "${DEBS[@]}"
KEEP_EXTRA=""

# ---------------------------------------------------------------- 4. stubs
cp -f "$SRC/arc4shim.c" "$SRC/elfver.py" "$SRC/llvm_stub.c" "$SRC/llvm.map" "$GL/stubs/"
(
    cd "$GL/stubs"
    gcc -shared -fPIC -O1 -Wl,-soname,libLLVM-15.so.1 -Wl,--version-script=llvm.map \
        -o libLLVM-15.so.1 llvm_stub.c
    gcc -shared -fPIC -O2 -Wl,-soname,libcr_arc4shim.so -o libcr_arc4shim.so arc4shim.c
)
say "built $GL/stubs/libLLVM-15.so.1 ($(readelf --dyn-syms -W "$GL/stubs/libLLVM-15.so.1" | grep -c '@LLVM_15') symbols @LLVM_15) and $GL/stubs/libcr_arc4shim.so"

# ---------------------------------------------------------------- 5. the app
if cmp -s "$APP" "$GL/circle-renderer"; then
    say "$GL/circle-renderer is up to date"
else
    cp -f "$APP" "$GL/circle-renderer"
    say "copied $APP -> $GL/circle-renderer"
fi
# beside the app: the worker that runs a student's renderer (found next to the program) and the
# screenshot checker of the workbench test
BUILD_DIR=$(dirname "$(dirname "$APP")")
for extra in "$BUILD_DIR/render-student-worker" "$BUILD_DIR/app/gui_shot_check"; do
    name=$(basename "$extra")
    if [ ! -x "$extra" ]; then say "note: $extra not built; the workbench test needs it"; continue; fi
    cmp -s "$extra" "$GL/$name" || { cp -f "$extra" "$GL/$name"; say "copied $extra -> $GL/$name"; }
done

for f in "$GL"/* "$GL"/debs/* "$GL"/stubs/*; do  # anything this script does not make
    case ${f#"$GL"/} in
        *.deb | debs | stubs | circle-renderer | render-student-worker | gui_shot_check | stubs/arc4shim.c | stubs/elfver.py | stubs/llvm_stub.c | \
            stubs/llvm.map | stubs/libLLVM-15.so.1 | stubs/libcr_arc4shim.so) ;;
        *) say "note: $f is not made by this script (left alone)" ;;
    esac
done
say "done: $GL ($(du -sh "$GL" | cut -f1)); run with: OUT=/some/dir bash scripts/gui_on_gpu.sh"
