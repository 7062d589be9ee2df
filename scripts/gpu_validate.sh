#!/usr/bin/env bash
# Everything the GPU issues ask to be checked on a CUDA machine, in parts
# that each fit a 10-minute call of the device tool:
#   PART=tests   GPU tests; compute-sanitizer on the kernels and the teaching variants
#   PART=check   every kernel's --check on every scene, snow frames to 1000,
#                snowsingle from a .par, the student fixtures through the CLI
#                (check, race report, faults, bench, grade)
#   PART=final   GPU tests, ftb's --check on every scene, compute-sanitizer on
#                ftb, and one bench of tiled, persistent and ftb
#   PART=measure benchmarks, the student-vs-course-like-loop timing, and
#                render profile tables for docs/PROFILING.md and docs/KERNELS.md
#   PART=students every course layout's fixture built (--build-only, timed), the
#                student GPU tests, each layout's --check on the 8 scored scenes at
#                1024, the `fast` fixture graded (wall time), --check wall times;
#                with COURSE=DIR (a folder of binaries made outside the project, see
#                docs/STUDENTS.md, "Comparing with the course's own procedure"), the
#                course's procedure (scripts/course_procedure.py) on the same code
#   PART=layouts with COURSE=DIR: the `fast` fixture graded (wall time), the layout A
#                and B fixtures graded and, on their own course binaries, the
#                course's procedure; the student GPU tests
#   PART=paths   the binned kernels after a change of the host side: GPU tests,
#                tiled/persistent/ftb --check on every scene, one bench of the
#                three, then compute-sanitizer on them through every binning path
#                (PATHS_NO_SANITIZE=1 leaves that to PART=sanitize_paths, when
#                the GPU tests have grown and the part would pass 10 minutes)
#   PART=sanitize_paths that compute-sanitizer run, then the guessed start's
#                (PART=guess_sanitize): one call
#   PART=pathcheck a quick check of the binning paths (no GPU tests): --check of
#                tiled, persistent and ftb on rand100k and fireworks frames 0:3
#                at 512 under each of gpu_sanitize.sh's path-forcing option sets
#                and two that send the counting sort's frames to its fallback
#   PART=guess   issue 30's guessed start (CR_CUDA_OPTIONS start=guess): the
#                early-stop GPU tests, tiled/persistent --check on every scene
#                with it (where planned) and forced (stop=on), a bench of the
#                deep scenes with and without it, and of its window 35 and 60
#   PART=guess_sanitize compute-sanitizer through the walk back (twice) and the guessed start's three
#                kernels (no culling, strip masks with window=1, row culling)
#   PART=layout  issue 30's shading switches (CR_CUDA_OPTIONS layout=quads,
#                snowdiv=recip, gather=records): their GPU tests, tiled/persistent
#                --check on every scene with all three, a bench of snowsingle with
#                neither snow switch, each and both, and of micro2M, rand10k and
#                rand1M with quads, with records, with the guess, and with both
#   PART=layout_sanitize compute-sanitizer through the quad layout's, the
#                reciprocal's and the circle records' kernels
#   PART=issue30 the first call of a session for issue 30 (meant to fit one
#                call): one bench of the issue's nine scenes as they are, with the
#                guessed start, and with every switch (start=guess, layout=quads,
#                snowdiv=recip, gather=records); the early stop's, the layout's and
#                the records' GPU tests; --check of tiled and persistent on every
#                scene with every switch; then PART=layout, PART=guess and the
#                sanitizer parts for the detail
#   PART=defaults30 issue 30's defaults as a user gets them (no options): one
#                bench of the nine scenes (tiled, persistent, ftb), --check of
#                the three on every scene, then every GPU test in what is left
#                of the call
#   PART=walk30  benches of the scenes that walk back (biglittle, littlebig;
#                rand100k and rand1M with start=walk) by this build, every A/B
#                build in .ab/ (.ab.tar.xz: .ab/render_*, e.g. render_head, the
#                build before) and this build again; with WALK_OPTIONS=1 also
#                biglittle's and littlebig's counted lists and rand1M's and
#                rand10k's other binning; then PART=defaults30 without the GPU
#                tests
#   PART=next30  rand10k with the guessed start (windows 30-60) and this
#                build with order=off, then PART=all30 (the recorded order's
#                and the reused chunk's call; docs/PERFORMANCE.md)
#   PART=place30 place=direct against place=staged (bin.place's entries staged
#                in tile order), twice, interleaved; snowsingle and micro2M by
#                this build and .ab/render_lite (snow's ramp, the strip masks'
#                32-bit atomics), twice; then --check with
#                place=staged on every scene, the binning GPU tests and the
#                sanitizer through the staged kernel, side by side
#   PART=side30  the recorded order launched ahead on a second stream: this
#                build against .ab/render_main, twice, defaults and order=on;
#                the order's GPU tests and the sanitizer through it
#   PART=compact30 bin.compact by warp ballots (.cmp/render_compact, from
#                .cmp.tar.xz) against .dev/render, twice; its --check of tiled,
#                persistent and ftb on every scene at 1024 and at odd sizes;
#                the sanitizer through bin.compact
#   PART=ab30    a change's A/B: this build against .ab/$AB_BUILD (render_head),
#                twice, interleaved, on issue 30's nine scenes; the default
#                checks; the sanitizer on tiled and persistent beside the GPU
#                tests of GPU_TESTS_FILTER (part_ab30 lists the knobs)
#   PART=beside30 the recorded order launched beside binning (after the
#                frame's binning is issued, from a fork at the end of the frame
#                before): this build against .ab/render_main, twice, defaults
#                and order=on; the default checks and tiled's with order=on;
#                every GPU test with the sanitizer through the order beside them
#   PART=empty30 stages that queue no GPU work (the deferred clear, a static
#                scene's advance) listed with 0 ms and no events: this build
#                against .ab/render_main (the build before), twice,
#                interleaved, on the nine scenes (tiled, persistent, ftb);
#                the default checks; the timeline's and the stage lists' GPU
#                tests beside the sanitizer through tiled's recorded order on
#                counted lists (its default since 2026-12-05)
#   PART=lengths30 the persistent kernel without the early stop ordered by
#                the list lengths its frame before recorded (computed beside
#                binning) instead of bin.order's sort on the stream: this
#                build against .ab/render_empty, twice, interleaved (pattern,
#                rand10k, micro2M, snowsingle; biglittle and rand1M, whose
#                early stop records chunks as before, as controls); the
#                default checks; every GPU test (GPU_TESTS_FILTER) beside the
#                sanitizer through the recorded lengths (LENGTHS_SANITIZE_SCENES,
#                LENGTHS_SANITIZE_OPTIONS)
#   PART=gtest   the GPU tests of GPU_TESTS_FILTER (gtest's syntax; all by
#                default) with this script's environment: run ./.dev/gpu_tests
#                without it and it misses its libraries (LD_LIBRARY_PATH) and
#                the GpuStudent tests their fixtures (CR_FIXTURES_DIR)
#   PART=tests30 every GPU test (not brief), PART=guess_sanitize beside them
#   PART=all30   PART=walk30's benches first, then its default checks, every GPU
#                test and PART=guess_sanitize side by side, in one call
#   PART=profile_layout30 PART=profile30, then PART=layout_sanitize
#   PART=profile30 Nsight Compute (render profile) on what issue 30's targets
#                still miss: snowsingle's exact shading (strips, then quads with
#                the reciprocal), micro2M's and rand1M's frames (binning and
#                shading), rand10k's
#   PART=class   the test suite's 14-entry class graded on every GPU here (wall
#                time), rerun, one changed, and three rows against `render grade`
# Expects the binaries (and the shared libraries they need) in .dev/, the
# assembled student fixtures in .dev/students: scripts/make_dev_bundle.sh packs
# them into .dev.tar.xz here (carry it), unpacked below when .dev/ is missing;
# logs go to $OUT (one archive, logs.tgz, plus a summary).
set -u
[ -d .dev ] || [ ! -f .dev.tar.xz ] || tar -xJf .dev.tar.xz
export LD_LIBRARY_PATH=$PWD/.dev:${LD_LIBRARY_PATH:-} CR_REFERENCE_DIR=$PWD/reference_images
export CR_FIXTURES_DIR=$PWD/.dev/students
export PATH=$PATH:/usr/local/cuda/bin LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
OUT=${OUT:-/tmp/out}; L=$OUT/logs; mkdir -p "$L"
R=$PWD/.dev/render F=$PWD/.dev/students
SCENES="rgb rgby rand10k rand100k rand1M biglittle littlebig pattern micro2M bouncingballs fireworks hypnosis snow snowsingle"
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
# since T0 [DIGITS]: seconds of wall time since T0 (a `date +%s.%N`), e.g. "12.3 s"
since() { python3 -c "print('%.${2:-1}f s' % ($(date +%s.%N) - $1))"; }

# The GPU tests (kernels, stages, snow, student fixtures, teaching variants).
run_gpu_tests() {
  timeout 420 ./.dev/gpu_tests --gtest_brief=1 > "$L/gpu_tests.txt" 2>&1; say "gpu_tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_tests.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$L/gpu_tests.txt" | head -20 | tee -a "$OUT/summary.txt"
}

# compute-sanitizer through scripts/gpu_sanitize.sh (its SANITIZE_* knobs
# narrow it); the log is $L/sanitize_$1.txt.
sanitize() {
  RENDER=$R SANITIZE_TOOLS="memcheck racecheck synccheck" bash scripts/gpu_sanitize.sh > "$L/sanitize_$1.txt" 2>&1
  say "$1: $(tail -n 1 "$L/sanitize_$1.txt")"; grep -E ' rc=[1-9]' "$L/sanitize_$1.txt" | tee -a "$OUT/summary.txt"
}

part_tests() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  run_gpu_tests
  SANITIZE_KERNELS="naive tiled persistent" SANITIZE_SCENES="rand10k@0:1 fireworks@0:3" SANITIZE_OPTIONS=default \
    sanitize kernels  # 36 runs: fits the call with the tests
}

part_check() {
  # --check of every kernel on every scene at 1024 (three kernels in parallel)
  for k in naive tiled persistent; do
    ( for s in $SCENES; do
        if [ $k = naive ] && [ "$s" = rand1M -o "$s" = micro2M ]; then continue; fi
        $R --scene $s -r $k --check > "$L/check_${k}_$s.txt" 2>&1; echo "$k $s rc=$? $(tail -n 1 "$L/check_${k}_$s.txt")"
      done ) > "$L/checks_$k.txt" &
  done
  wait
  say "kernel checks at 1024: $(cat "$L"/checks_*.txt | grep -c 'rc=0 PASS') of $(cat "$L"/checks_*.txt | wc -l) PASS"; cat "$L"/checks_*.txt | grep -v 'rc=0 PASS' | tee -a "$OUT/summary.txt"
  # 3. snow frames 0..1000 at 256 on every kernel; snowsingle from a 100000-flake .par at 512 and 1024
  for k in naive tiled persistent; do for f in 0 150 300 600 1000; do
    $R --scene snow -r $k -b $f:$((f+1)) --size 256 --check > "$L/snow_${k}_$f.txt" 2>&1; echo "snow $k frame $f rc=$? $(tail -n 1 "$L/snow_${k}_$f.txt")"
  done; done > "$L/snow.txt"; say "snow frames: $(grep -c 'rc=0 PASS' "$L/snow.txt") of 15 PASS"; grep -v 'rc=0 PASS' "$L/snow.txt" | tee -a "$OUT/summary.txt"
  mkdir -p /tmp/par && ( cd /tmp/par && python3 -c "import random as r; r.seed(1); print(100000); [print(r.random(), r.random(), r.random(), 0, 0, 0, .0075+.05*r.random()) for _ in range(100000)]" > snow.par
    for k in naive tiled persistent; do for s in 512 1024; do $R --scene snowsingle -r $k -s $s --check > "$L/par_${k}_$s.txt" 2>&1; echo "par $k $s rc=$? $(grep -c 'flakes from ./snow.par' "$L/par_${k}_$s.txt") $(tail -n 1 "$L/par_${k}_$s.txt")"; done; done ) > "$L/par.txt"
  say "snowsingle from snow.par: $(grep -c 'rc=0 1 PASS' "$L/par.txt") of 6 PASS"
  student_cli
}

student_cli() {
  for s in $SCENES; do
    $R --student $F/correct --scene $s --check > "$L/student_correct_$s.txt" 2>&1; echo "correct $s rc=$? $(tail -n 1 "$L/student_correct_$s.txt")"
  done > "$L/student_correct.txt"; say "student correct fixture --check: $(grep -c 'rc=0 PASS' "$L/student_correct.txt") of $(wc -l < "$L/student_correct.txt") PASS"; grep -v 'rc=0 PASS' "$L/student_correct.txt" | tee -a "$OUT/summary.txt"
  $R --student $F/racy --scene rand10k --size 512 --check > "$L/student_racy.txt" 2>&1; say "racy rc=$? $(grep -c 'changes between runs' "$L/student_racy.txt") race report, $(grep -c 'circles covering it' "$L/student_racy.txt") pixel story"
  $R --student $F/out_of_bounds --scene rgb > "$L/student_oob.txt" 2>&1; say "oob rc=$? $(tail -n 1 "$L/student_oob.txt")"
  $R --student $F/hang --scene rgb --student-timeout 5 > "$L/student_hang.txt" 2>&1; say "hang rc=$? $(tail -n 1 "$L/student_hang.txt")"
  $R bench --renderers student,tiled --student $F/out_of_bounds --scenes rgb,rand10k --repeat 1 > "$L/bench_oob.txt" 2>&1; say "bench oob+tiled rc=$? $(grep -c ' ok$' "$L/bench_oob.txt") tiled rows ok"
  for fx in define_uint no_scan_block_dim; do $R --student $F/$fx --scene rand10k --check > "$L/student_$fx.txt" 2>&1; say "$fx rc=$? $(tail -n 1 "$L/student_$fx.txt")"; done
  $R bench --renderers student,tiled,persistent --student $F/correct --scenes rgb,rand10k,rand100k,pattern --timing course --repeat 3 > "$L/bench_student.txt" 2>&1; say "bench student,tiled,persistent (course timing) rc=$?"
  timeout 500 $R grade --student $F/correct --seed 7 --json "$L/grade.json" > "$L/grade.txt" 2>&1; say "grade rc=$? $(grep 'Total score' "$L/grade.txt") $(grep 'Also checked' "$L/grade.txt")"
}

part_measure() {
  # benchmarks (events), then the student's time against a course-like main loop of the same code
  $R bench --repeat 3 --renderers tiled,persistent --scenes rgb,rgby,rand10k,rand100k,pattern,biglittle,littlebig,rand1M,micro2M,snowsingle --json "$L/bench.json" > "$L/bench.txt" 2>/dev/null
  say "$(sed -n '5,30p' "$L/bench.txt" | grep -E '^(rgb|rgby|rand|pattern|big|little|micro|snow)')"
  for s in rand10k rand100k pattern; do
    best=; for i in 1 2 3; do t=$(./.dev/course_like_main $s 1024 0:4 | awk '/Total/{print $2}'); best=$(python3 -c "print(min(float('$t'), float('${best:-1e9}')))"); done
    h=$($R --student $F/correct --scene $s -b 0:4 --json - 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['total_ms'])")
    say "timing $s: course-like loop $best ms, harness $h ms"
  done
  profiles
}

profiles() {
  P="$R profile --timeout 240"
  $P --scene rand100k -r tiled --json "$L/prof_tiled_rand100k.json" > "$L/prof_tiled_rand100k.txt" 2>&1; say "profile tiled rand100k rc=$?"
  $P --scene rand100k -r naive --size 512 --json "$L/prof_naive_rand100k.json" > "$L/prof_naive_rand100k.txt" 2>&1; say "profile naive rc=$?"
  $P --scene rand10k -r unordered --json "$L/prof_unordered_rand10k.json" > "$L/prof_unordered.txt" 2>&1; say "profile unordered rc=$?"
  $P --scene rand10k --student $F/correct --size 512 > "$L/prof_student.txt" 2>&1; say "profile student rc=$? $(grep -c renderKernel "$L/prof_student.txt") renderKernel rows"
  for o in fill=thread list=split cull=warp tile=8; do
    CR_CUDA_OPTIONS=$o $P --scene rand100k -r tiled --json "$L/prof_tiled_$o.json" --compare "$L/prof_tiled_rand100k.json" > "$L/prof_tiled_$o.txt" 2>&1; say "profile tiled $o rc=$?"
  done
  CR_CUDA_OPTIONS=fill=thread $P --scene biglittle -r tiled --json "$L/prof_fill_thread_biglittle.json" > "$L/prof_fill_thread_biglittle.txt" 2>&1
  $P --scene biglittle -r tiled --json "$L/prof_fill_warp_biglittle.json" > "$L/prof_fill_warp_biglittle.txt" 2>&1; say "profile biglittle fills done"
  CR_NCU=/nonexistent $R profile --scene rgb > "$L/prof_no_ncu.txt" 2>&1; say "profile without ncu rc=$? $(head -c 120 "$L/prof_no_ncu.txt")"
}

part_final() {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/device.txt"
  run_gpu_tests
  grep -E '^ftb ' "$L/gpu_tests.txt" > "$L/ftb_errors.txt"
  say "ftb max abs error over the GPU tests: $(awk '{print $NF}' "$L/ftb_errors.txt" | sort -g | tail -1)"
  for s in $SCENES; do
    $R --scene $s -r ftb --check > "$L/ftb_$s.txt" 2>&1; echo "ftb $s rc=$? $(grep -o 'max abs error [^,]*' "$L/ftb_$s.txt") $(tail -n 1 "$L/ftb_$s.txt")"
  done > "$L/ftb_checks.txt"; say "ftb --check at 1024: $(grep -c 'rc=0' "$L/ftb_checks.txt") of $(wc -l < "$L/ftb_checks.txt") PASS"; cat "$L/ftb_checks.txt" >> "$OUT/summary.txt"
  SANITIZE_KERNELS=ftb SANITIZE_OPTIONS="default batch=300,direct=0" sanitize ftb
  $R bench --repeat 3 --renderers tiled,persistent,ftb --json "$L/bench_final.json" > "$L/bench_final.txt" 2>/dev/null
  say "$(grep -E '^(rgb|rgby|rand|pattern|big|little|micro|snow)' "$L/bench_final.txt" | grep -v '=')"
  grep -E '^(rand100k|biglittle|rand1M|micro2M|snowsingle) +ftb' "$L/bench_final.txt" | grep '=' | tee -a "$OUT/summary.txt"
}

part_students() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  export CR_STUDENT_CACHE=$PWD/.dev/student-cache
  local scored="rgb rand10k rand100k pattern snowsingle biglittle rand1M micro2M" f s s0 b
  local end=$((SECONDS + ${STUDENTS_BUDGET_S:-560}))
  [ -z "${COURSE:-}" ] || export LD_LIBRARY_PATH=$COURSE/lib:$LD_LIBRARY_PATH
  # the timings first, on a quiet GPU: the `fast` fixture graded, then the course's procedure
  local g=/tmp/grade-fast; rm -rf $g; cp -r $F/fast $g
  [ -z "${COURSE:-}" ] || cp "$COURSE/snow.par" "$COURSE/render_ref_x86" $g/
  $R --student $g --build-only > "$L/build_grade_fast.txt" 2>&1
  s0=$(date +%s.%N); timeout 300 $R grade --student $g --seed 7 --fresh-reference --json "$L/grade_fast.json" > "$L/grade_fast.txt" 2>&1
  say "grade fast rc=$? wall $(since $s0) (built before, T_ref timed)"; grep -E '^\||^Graded|^[a-zA-Z0-9]+: T from' "$L/grade_fast.txt" | tee -a "$OUT/summary.txt"
  s0=$(date +%s.%N); timeout 300 $R grade --student $g --seed 7 --json "$L/grade_fast_kept.json" > "$L/grade_fast_kept.txt" 2>&1
  say "grade fast again rc=$? wall $(since $s0) (T_ref kept) $(grep -E '^\| Total' "$L/grade_fast_kept.txt")"; grep '^Graded' "$L/grade_fast_kept.txt" | tee -a "$OUT/summary.txt"
  if [ -n "${COURSE:-}" ]; then
    mkdir -p /tmp/course-procedure && cp "$COURSE/snow.par" /tmp/course-procedure/
    timeout 300 python3 scripts/course_procedure.py "$COURSE/course_fast" "$COURSE/render_ref_x86" /tmp/course-procedure \
      <(python3 -c "import json,sys; print(json.dumps({r['scene']: r['seed'] for r in json.load(open(sys.argv[1]))['scenes']}))" "$L/grade_fast.json" 2>/dev/null || echo '{}') \
      > "$L/course_procedure.txt" 2>&1
    say "course procedure rc=$?"; cat "$L/course_procedure.txt" >> "$OUT/summary.txt"
    small_scene_rounds $g "${ROUNDS:-4}"
  fi
  if [ -n "${COURSE:-}" ]; then  # the gate library drops render_ref's last PPM file, and only that one
    mkdir -p /tmp/skip/logs && ( cd /tmp/skip && 
      LD_PRELOAD=$OLDPWD/.dev/libcr_cuda_gate.so CR_SKIP_FILE=logs/output_0003.ppm "$COURSE/render_ref_x86" -r cuda -b 0:4 rgb -s 1024 -f logs/output > out.txt 2>&1
      say "render_ref with CR_SKIP_FILE rc=$? $(grep Total out.txt) files: $(ls logs | tr '\n' ' ')" )
  fi
  for s in biglittle rand1M; do
    s0=$(date +%s.%N); $R -r tiled --scene $s --check > "$L/tiled_check_$s.txt" 2>&1
    say "tiled --check $s rc=$? wall $(since $s0 2) $(tail -n 1 "$L/tiled_check_$s.txt")"
  done
  for f in layout_a layout_b layout_c fast correct host_a compile_error; do
    s0=$(date +%s.%N); $R --student $F/$f --build-only > "$L/build_$f.txt" 2>&1
    say "build $f rc=$? $(since $s0) $(grep -m1 'layout:' "$L/build_$f.txt")"
  done
  for f in layout_a layout_b layout_c fast correct; do for s in $scored; do
    timeout 120 $R --student $F/$f --scene $s --check > "$L/check_${f}_$s.txt" 2>&1; echo "$f $s rc=$? $(tail -n 1 "$L/check_${f}_$s.txt")"
  done; done > "$L/layout_checks.txt"
  say "layout --check at 1024: $(grep -c 'rc=0 PASS' "$L/layout_checks.txt") of $(wc -l < "$L/layout_checks.txt") PASS"
  grep -v 'rc=0 PASS' "$L/layout_checks.txt" | tee -a "$OUT/summary.txt"
  if [ -n "${COURSE:-}" ]; then  # the course binaries' own -c verdicts on the same scenes
    for b in course_correct course_fast; do for s in $scored; do
      ( cd /tmp/course-procedure && timeout 120 "$COURSE/$b" -c $s -s 1024 > "$L/$b-c_$s.txt" 2>&1; echo "$b $s rc=$?" )
    done; done > "$L/course_c.txt"; say "course binaries' -c: $(grep -c 'rc=0' "$L/course_c.txt") of $(wc -l < "$L/course_c.txt") pass"
    grep -v 'rc=0' "$L/course_c.txt" | tee -a "$OUT/summary.txt"
  fi
  b=$((end - SECONDS)); [ $b -gt 90 ] || b=90  # they took 52 s on the H200
  timeout $b ./.dev/gpu_tests --gtest_filter='GpuStudent.*' --gtest_brief=1 > "$L/gpu_students.txt" 2>&1
  say "gpu_tests GpuStudent.* rc=$? (limit ${b} s) $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_students.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$L/gpu_students.txt" | head -20 | tee -a "$OUT/summary.txt"
}

# T of the sub-millisecond scenes, the folder's own course binary (min of 3
# fresh runs, as checker.py) against `render grade --scenes` (T_ref kept), in
# alternating rounds: their runs spread by up to 20-30%, so one round says
# little; each round's pair is one line of the summary.
small_scene_rounds() {
  local g=$1 n=$2 k s t
  for k in $(seq 1 "$n"); do
    for s in rgb rand10k pattern; do
      t=$(for i in 1 2 3; do ( cd /tmp/course-procedure && "$COURSE/course_fast" -r cuda -b 0:4 $s -s 1024 -f logs/output | awk '/Total/{print $2}' ); done | sort -g | head -1)
      echo "$s course $t"
    done > "$L/round_course_$k.txt"
    $R grade --student $g --seed 7 --scenes rgb,rand10k,pattern --json "$L/round_grade_$k.json" > "$L/round_grade_$k.txt" 2>&1
    say "round $k: course binary $(tr '\n' ' ' < "$L/round_course_$k.txt")| grade $(python3 -c "import json,sys; print(' '.join('%s %.4f %s' % (r['scene'], r['stu_time'], r['stu_times']) for r in json.load(open(sys.argv[1]))['scenes']))" "$L/round_grade_$k.json" 2>&1)"
  done
}

# Layouts A and B graded next to the course's procedure on their own course
# binaries (COURSE=DIR also holds course_a and course_b: the layout_a and
# layout_b fixtures' cudaRenderer.cu, cudaRenderer.h and exclusiveScan.cu_inl
# over the course's 2019 and 2024 render/ folders, built by those Makefiles).
part_layouts() {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$L/device.txt"
  export CR_STUDENT_CACHE=$PWD/.dev/student-cache LD_LIBRARY_PATH=$COURSE/lib:$LD_LIBRARY_PATH
  local pair f b g s0
  g=/tmp/grade-fast; rm -rf $g; cp -r $F/fast $g; cp "$COURSE/snow.par" "$COURSE/render_ref_x86" $g/
  $R --student $g --build-only > "$L/build_grade_fast.txt" 2>&1
  s0=$(date +%s.%N); timeout 300 $R grade --student $g --seed 7 --json "$L/grade_fast.json" > "$L/grade_fast.txt" 2>&1
  say "grade fast rc=$? wall $(since $s0) (built before, T_ref timed) $(grep -E '^\| Total' "$L/grade_fast.txt")"; grep '^Graded' "$L/grade_fast.txt" | tee -a "$OUT/summary.txt"
  for pair in layout_a:course_a layout_b:course_b; do
    f=${pair%%:*}; b=${pair#*:}; g=/tmp/grade-$f
    rm -rf $g; cp -r $F/$f $g; cp "$COURSE/snow.par" $g/
    $R --student $g --build-only > "$L/build_$f.txt" 2>&1
    s0=$(date +%s.%N); timeout 300 $R grade --student $g --seed 7 --reference "$COURSE/render_ref_x86" --json "$L/grade_$f.json" > "$L/grade_$f.txt" 2>&1
    say "grade $f rc=$? wall $(since $s0)"; grep -E '^\||^Graded|: T from' "$L/grade_$f.txt" | tee -a "$OUT/summary.txt"
    mkdir -p /tmp/cp-$f && cp "$COURSE/snow.par" /tmp/cp-$f/
    timeout 300 python3 scripts/course_procedure.py --no-seeds "$COURSE/$b" "$COURSE/render_ref_x86" /tmp/cp-$f > "$L/course_procedure_$f.txt" 2>&1
    say "course procedure $b rc=$?"; cat "$L/course_procedure_$f.txt" >> "$OUT/summary.txt"
  done
  timeout 240 ./.dev/gpu_tests --gtest_filter='GpuStudent.*' --gtest_brief=1 > "$L/gpu_students.txt" 2>&1
  say "gpu_tests GpuStudent.* rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_students.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure|expected|Which is' "$L/gpu_students.txt" | head -20 | tee -a "$OUT/summary.txt"
}

# The test suite's 14-entry class (tests/test_class_run.cpp's make_class),
# made from the fixtures: 11 folders, lee.tar.gz as create_submission.sh makes
# it, max.zip with a compile error, ned/ without a course folder.
make_class() {
  local c=$1 pair
  rm -rf "$c"; mkdir -p "$c"
  for pair in ana:layout_a ben:layout_b cho:layout_c dev:fast eli:correct fay:racy gus:out_of_bounds hal:hang \
              ivy:host_hog jon:define_uint kim:no_scan_block_dim; do cp -r "$F/${pair#*:}" "$c/${pair%%:*}"; done
  local t; t=$(mktemp -d); mkdir -p "$t/render" "$t/saxpy" "$t/scan"
  cp -r "$F/layout_c/." "$t/render/"; echo "// part 1" > "$t/saxpy/saxpy.cu"; echo "// part 2" > "$t/scan/scan.cu"
  tar czf "$c/lee.tar.gz" -C "$t" render saxpy scan; rm -rf "$t"
  python3 -c "import sys, zipfile, pathlib; z = zipfile.ZipFile(sys.argv[2], 'w'); [z.write(p, 'render/' + str(p.relative_to(sys.argv[1]))) for p in pathlib.Path(sys.argv[1]).rglob('*') if p.is_file()]" "$F/compile_error" "$c/max.zip"
  mkdir -p "$c/ned"; echo "no renderer here" > "$c/ned/README"
}

# Issues 31 and 32: the class graded with one command on every GPU here
# (the wall time), a rerun (nothing changed), one changed submission, and
# three rows against the same folders' own `render grade`.
part_class() {
  nvidia-smi --query-gpu=index,name --format=csv,noheader | tee "$L/device.txt"
  export CR_STUDENT_CACHE=$PWD/.dev/student-cache
  local c=/tmp/class14 r=/tmp/class_results s0 id  # kept out of $OUT (its many files would not all come back)
  make_class $c
  s0=$(date +%s.%N); $R grade --class $c --out $r > "$L/class_first.txt" 2>&1
  say "class first rc=$? wall $(since $s0) gpus $(nvidia-smi -L | wc -l)"
  tail -n 3 "$L/class_first.txt" | tee -a "$OUT/summary.txt"
  s0=$(date +%s.%N); $R grade --class $c --out $r > "$L/class_rerun.txt" 2>&1
  say "class rerun rc=$? wall $(since $s0) $(grep -m1 'unchanged' "$L/class_rerun.txt")"
  echo "// changed" >> $c/ben/cudaRenderer.h
  s0=$(date +%s.%N); $R grade --class $c --out $r > "$L/class_changed.txt" 2>&1
  say "class one changed rc=$? wall $(since $s0) $(grep -m1 'unchanged' "$L/class_changed.txt")"
  cat $r/grades.csv >> "$OUT/summary.txt"
  for id in ana dev eli; do
    $R grade --student $c/$id --json "$L/alone_$id.json" > "$L/alone_$id.txt" 2>&1
    say "alone $id rc=$? $(grep -E '^Total|total' "$L/alone_$id.txt" | tail -n 1)"
  done
  rm -rf $r/unpacked
  cp -r $r "$L/class_results"  # into logs.tgz
}

part_paths() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  run_gpu_tests
  scene_checks "tiled persistent ftb" "" check "kernel checks at 1024"
  $R bench --repeat 5 --renderers tiled,persistent,ftb --json "$L/bench_paths.json" > "$L/bench_paths.txt" 2>/dev/null
  say "$(grep -E '^(rgb|rgby|rand|pattern|big|little|micro|snow)' "$L/bench_paths.txt" | grep -v '=')"
  cp "$L/bench_paths.json" "$L/bench_paths.txt" "$OUT/" 2>/dev/null
  [ -n "${PATHS_NO_SANITIZE:-}" ] || part_paths_sanitize
}

part_paths_sanitize() {
  SANITIZE_KERNELS="tiled persistent ftb" SANITIZE_SCENES="rand10k@0:1 fireworks@0:3" sanitize paths
}

part_pathcheck() {
  local sets o k sc n=0 ok=0
  sets=$(sed -n 's/^OPTIONS=\${SANITIZE_OPTIONS:-\(.*\)}$/\1/p' scripts/gpu_sanitize.sh)
  # and the counted path's fallback to the sorting stages in batches (a frame past one batch)
  sets="$sets count=on,direct=0,batch=20000 count=on,direct=0,coarse=4,split=on,batch=20000"
  for o in $sets; do for k in tiled persistent ftb; do for sc in rand100k fireworks; do
    n=$((n + 1))
    [ "$o" = default ] && o=""
    CR_CUDA_OPTIONS=$o $R --scene $sc -r $k -b 0:3 --size 512 --check > "$L/pc_$n.txt" 2>&1 && ok=$((ok + 1)) ||
      echo "FAIL: CR_CUDA_OPTIONS=$o $k $sc: $(tail -n 2 "$L/pc_$n.txt" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
  done; done; done
  say "path checks (512, frames 0:3): $ok of $n PASS"
}

part_guess() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  timeout 300 ./.dev/gpu_tests --gtest_brief=1 --gtest_filter='GpuCoalesce*' > "$L/gpu_coalesce.txt" 2>&1
  say "GpuCoalesce rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_coalesce.txt" | tr '\n' ' ')"
  local o k s
  for o in start=guess stop=on,start=guess; do for k in tiled persistent; do
    ( for s in $SCENES; do
        CR_CUDA_OPTIONS=$o $R --scene $s -r $k --check > "$L/gcheck_${o}_${k}_$s.txt" 2>&1
        echo "$o $k $s rc=$? $(tail -n 1 "$L/gcheck_${o}_${k}_$s.txt")"
      done ) > "$L/gchecks_${o}_$k.txt" &
  done; done
  wait
  say "guess checks at 1024: $(cat "$L"/gchecks_*.txt | grep -c 'rc=0 PASS') of $(cat "$L"/gchecks_*.txt | wc -l) PASS"
  cat "$L"/gchecks_*.txt | grep -v 'rc=0 PASS' | tee -a "$OUT/summary.txt"
  local deep=rand100k,biglittle,littlebig,rand1M,rand10k
  $R bench --repeat 5 --renderers tiled,persistent --scenes $deep --json "$L/bench_walk.json" > "$L/bench_walk.txt" 2>/dev/null
  CR_CUDA_OPTIONS=start=guess $R bench --repeat 5 --renderers tiled,persistent --scenes $deep --json "$L/bench_guess.json" \
    --compare "$L/bench_walk.json" > "$L/bench_guess.txt" 2>/dev/null
  say "walk:"; say "$(grep -E '^(rand|big|little)' "$L/bench_walk.txt" | grep -v '=')"
  say "guess:"; say "$(grep -E '^(rand|big|little)' "$L/bench_guess.txt" | grep -v '=')"
  # rand10k, where the plan does not stop early: forced, the model says the guessed start may pay there
  CR_CUDA_OPTIONS=stop=on,start=guess $R bench --repeat 5 --renderers tiled --scenes rand10k \
    --json "$L/bench_guess_rand10k.json" > "$L/bench_guess_rand10k.txt" 2>/dev/null
  say "rand10k, stop=on,start=guess:"; say "$(grep -E '^rand' "$L/bench_guess_rand10k.txt" | grep -v '=')"
  for w in 35 60; do  # the window's sweep (tiled only)
    CR_CUDA_OPTIONS=start=guess,window=$w $R bench --repeat 5 --renderers tiled --scenes $deep \
      --json "$L/bench_guess_w$w.json" > "$L/bench_guess_w$w.txt" 2>/dev/null
    say "guess, window=$w:"; say "$(grep -E '^(rand|big|little)' "$L/bench_guess_w$w.txt" | grep -v '=')"
  done
  cp "$L"/bench_walk.* "$L"/bench_guess* "$OUT/" 2>/dev/null
}

GUESS_SANITIZE_OPTIONS="stop=on,start=walk,gap=2 stop=on,start=walk,strips=on,bins=sort stop=on,start=guess stop=on,start=guess,window=1,strips=on stop=on,start=guess,rowcull=on,strips=off,bins=sort,count=off"
part_guess_sanitize() {
  SANITIZE_KERNELS="tiled persistent" SANITIZE_SCENES="rand10k@0:1 fireworks@0:3 pattern@0:1" SANITIZE_VARIANTS="" \
    SANITIZE_OPTIONS="$GUESS_SANITIZE_OPTIONS" sanitize guess
}

part_layout() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  timeout 300 ./.dev/gpu_tests --gtest_brief=1 --gtest_filter='GpuLayout*:GpuGather*:GpuStripMasks.Snow*' > "$L/gpu_layout.txt" 2>&1
  say "GpuLayout rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_layout.txt" | tr '\n' ' ')"
  local o k s name
  for o in layout=quads,snowdiv=recip layout=quads,snowdiv=recip,gather=records; do for k in tiled persistent; do
    ( for s in $SCENES; do
        CR_CUDA_OPTIONS=$o $R --scene $s -r $k --check > "$L/lcheck_${o//[=,]/_}_${k}_$s.txt" 2>&1
        echo "$o $k $s rc=$? $(tail -n 1 "$L/lcheck_${o//[=,]/_}_${k}_$s.txt")"
      done ) > "$L/lchecks_${o//[=,]/_}_$k.txt" &
  done; done
  wait
  say "layout checks at 1024: $(cat "$L"/lchecks_*.txt | grep -c 'rc=0 PASS') of $(cat "$L"/lchecks_*.txt | wc -l) PASS"
  cat "$L"/lchecks_*.txt | grep -v 'rc=0 PASS' | tee -a "$OUT/summary.txt"
  for o in "" layout=quads snowdiv=recip layout=quads,snowdiv=recip; do
    name=${o:-strips_ieee}; name=${name//[=,]/_}
    CR_CUDA_OPTIONS=$o $R bench --repeat 5 --renderers tiled,persistent --scenes snowsingle \
      --json "$L/bench_snow_$name.json" > "$L/bench_snow_$name.txt" 2>/dev/null
    say "snowsingle, ${o:-strips, IEEE division}:"; say "$(grep -E '^snowsingle' "$L/bench_snow_$name.txt")"
  done
  for o in "" layout=quads gather=records start=guess start=guess,gather=records; do
    # micro2M: its tiled kernel without the spill, and with circle records; rand10k: quads on a flat
    # scene; rand1M: records with the walk back and with the guessed start
    name=${o:-strips}; name=${name//[=,]/_}
    CR_CUDA_OPTIONS=$o $R bench --repeat 5 --renderers tiled,persistent --scenes micro2M,rand10k,rand1M \
      --json "$L/bench_flat_$name.json" > "$L/bench_flat_$name.txt" 2>/dev/null
    say "micro2M, rand10k, rand1M, ${o:-default}:"; say "$(grep -E '^(micro|rand)' "$L/bench_flat_$name.txt")"
  done
  cp "$L"/bench_snow_* "$L"/bench_flat_* "$OUT/" 2>/dev/null
}

part_layout_sanitize() {
  SANITIZE_KERNELS="tiled persistent" SANITIZE_SCENES="file:scenes/examples/snow_small.txt@0:2 rand10k@0:1 fireworks@0:3" \
    SANITIZE_VARIANTS="" \
    SANITIZE_OPTIONS="layout=quads,snowdiv=recip layout=quads,direct=0,bins=sort,count=off snowdiv=recip,strips=on,direct=0 gather=records,strips=on,direct=0 gather=records,stop=on,start=guess" \
    sanitize layout
}

part_issue30() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  # the benches first (what the issue's targets are judged by), copied out at once: a call that runs
  # past its limit still returns them
  local all=start=guess,layout=quads,snowdiv=recip,gather=records b
  local nine=rgb,pattern,rand10k,rand100k,biglittle,littlebig,rand1M,micro2M,snowsingle
  $R bench --repeat 5 --renderers tiled,persistent,ftb --scenes $nine --json "$L/bench30_now.json" \
    > "$L/bench30_now.txt" 2>/dev/null
  CR_CUDA_OPTIONS=start=guess $R bench --repeat 5 --renderers tiled,persistent --scenes $nine \
    --json "$L/bench30_guess.json" > "$L/bench30_guess.txt" 2>/dev/null
  CR_CUDA_OPTIONS=$all $R bench --repeat 5 --renderers tiled,persistent --scenes $nine \
    --json "$L/bench30_all.json" > "$L/bench30_all.txt" 2>/dev/null
  cp "$L"/bench30_* "$OUT/" 2>/dev/null
  for b in now guess all; do say "bench, $b:"; say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent|ftb) +events' "$L/bench30_$b.txt")"; done
  [ -x ./.dev/gpu_tests ] || say "no .dev/gpu_tests: the bundle was made with SLIM=1; make it without for this part"
  timeout 240 ./.dev/gpu_tests --gtest_brief=1 --gtest_filter='GpuCoalesce*:GpuLayout*:GpuGather*' \
    > "$L/gpu_issue30.txt" 2>&1
  say "GPU tests (GpuCoalesce, GpuLayout, GpuGather) rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_issue30.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$L/gpu_issue30.txt" | head -20 | tee -a "$OUT/summary.txt"
  scene_checks "tiled persistent" "$all" acheck "checks with every switch at 1024"
}

# scene_checks KERNELS OPTIONS TAG LABEL: --check of each kernel on every scene
# at 1024 with CR_CUDA_OPTIONS=OPTIONS, the kernels in parallel; logs
# $L/TAG_KERNEL_SCENE.txt and $L/TAGs_KERNEL.txt, one summary line "LABEL: n of m PASS"
# and the lines that did not pass.
scene_checks() {
  local opts=$2 tag=$3 k s
  for k in $1; do
    ( for s in $SCENES; do
        CR_CUDA_OPTIONS=$opts $R --scene $s -r $k --check > "$L/${tag}_${k}_$s.txt" 2>&1
        echo "$k $s rc=$? $(tail -n 1 "$L/${tag}_${k}_$s.txt")"
      done ) > "$L/${tag}s_$k.txt" &
  done
  wait
  say "$4: $(cat "$L"/${tag}s_*.txt | grep -c 'rc=0 PASS') of $(cat "$L"/${tag}s_*.txt | wc -l) PASS"
  cat "$L"/${tag}s_*.txt | grep -v 'rc=0 PASS' | tee -a "$OUT/summary.txt"
}

# --check of tiled, persistent and ftb on every scene at 1024, as a user runs it (no options).
default_checks() { scene_checks "tiled persistent ftb" "" check "default checks at 1024"; }

part_defaults30() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  local end=$((SECONDS + ${DEFAULTS_BUDGET_S:-560})) b
  local nine=rgb,pattern,rand10k,rand100k,biglittle,littlebig,rand1M,micro2M,snowsingle
  $R bench --repeat 5 --renderers tiled,persistent,ftb --scenes $nine --json "$L/bench30_defaults.json" \
    > "$L/bench30_defaults.txt" 2>/dev/null
  cp "$L"/bench30_defaults.* "$OUT/" 2>/dev/null
  say "bench, defaults:"; say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent|ftb) +events' "$L/bench30_defaults.txt")"
  [ -n "${NO_CHECKS:-}" ] || default_checks
  [ -z "${NO_GPU_TESTS:-}" ] || return 0
  b=$((end - SECONDS)); [ $b -gt 60 ] || b=60
  timeout $b ./.dev/gpu_tests > "$L/gpu_tests.txt" 2>&1  # not brief: a timeout still shows what passed
  say "gpu_tests rc=$? (limit $b s) $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_tests.txt" | tr '\n' ' ') $(grep -c '^\[       OK \]' "$L/gpu_tests.txt") OK lines"
  grep -E '^\[  FAILED  \]' "$L/gpu_tests.txt" | head -20 | tee -a "$OUT/summary.txt"
}

part_walk30() {
  [ -d .ab ] || [ ! -f .ab.tar.xz ] || tar -xJf .ab.tar.xz
  local b name i=0
  for b in "$R" .ab/render_* "$R"; do  # this build twice: first and last; the A/B builds between
    i=$((i + 1)); name=$i-$(basename "$b"); [ "$b" = "$R" ] && name=$i-this
    $b bench --repeat 5 --renderers tiled,persistent --scenes biglittle,littlebig --json "$L/walk_${name}_bl.json" \
      > "$L/walk_${name}_bl.txt" 2>/dev/null
    CR_CUDA_OPTIONS=start=walk $b bench --repeat 5 --renderers tiled --scenes rand100k,rand1M \
      --json "$L/walk_${name}_deep.json" > "$L/walk_${name}_deep.txt" 2>/dev/null
    say "walk back, $name:"; say "$(grep -hE '^[A-Za-z0-9]+ +(tiled|persistent) +events' "$L/walk_${name}_bl.txt" "$L/walk_${name}_deep.txt")"
  done
  [ -z "${WALK_OPTIONS:-}" ] || walk_option_benches
  cp "$L"/walk_* "$OUT/" 2>/dev/null
  NO_GPU_TESTS=1 part_defaults30
}

# WALK_OPTIONS=1 of PART=walk30: biglittle's and littlebig's counted lists,
# rand1M's and rand10k's other binning.
walk_option_benches() {
  local o
  for o in bins=sort bins=sort,split=on bins=sort,split=on,start=walk; do  # biglittle's other lists
    CR_CUDA_OPTIONS=$o $R bench --repeat 5 --renderers tiled,persistent --scenes biglittle,littlebig \
      --json "$L/walk_opt_${o//[=,]/_}.json" > "$L/walk_opt_${o//[=,]/_}.txt" 2>/dev/null
    say "biglittle, littlebig with $o:"; say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent) +events' "$L/walk_opt_${o//[=,]/_}.txt")"
  done
  for o in split=off coarse=2 coarse=1 bins=sort; do  # rand1M's binning under the guessed start; rand10k's counted lists
    CR_CUDA_OPTIONS=$o $R bench --repeat 5 --renderers tiled --scenes rand1M,rand10k \
      --json "$L/walk_opt_${o//[=,]/_}_deep.json" > "$L/walk_opt_${o//[=,]/_}_deep.txt" 2>/dev/null
    say "rand1M, rand10k with $o:"; say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent) +events' "$L/walk_opt_${o//[=,]/_}_deep.txt")"
  done
}

# bounded_sanitize TAG LIMIT KERNELS SCENES OPTIONS TOOLS: scripts/gpu_sanitize.sh
# within LIMIT seconds (no teaching variants), its log $L/sanitize_TAG.txt, a
# summary line with the clean runs and the runs that were not.
bounded_sanitize() {
  SANITIZE_KERNELS="$3" SANITIZE_SCENES="$4" SANITIZE_VARIANTS="" SANITIZE_OPTIONS="$5" RENDER=$R \
    SANITIZE_TOOLS="$6" timeout "$2" bash scripts/gpu_sanitize.sh > "$L/sanitize_$1.txt" 2>&1
  say "$1 sanitize rc=$? (limit $2 s): $(tail -n 1 "$L/sanitize_$1.txt") $(grep -c ' rc=0 ' "$L/sanitize_$1.txt") clean runs"
  grep -E ' rc=[1-9]' "$L/sanitize_$1.txt" | tee -a "$OUT/summary.txt"
}

# PART=walk30's benches and default checks, and beside the checks (none
# of it timed) every GPU test and the early stop's sanitizer runs, all
# stopped by ALL30_END_S (seconds since the start; default 560): one call.
part_all30() {
  local b
  NO_CHECKS=1 part_walk30
  b=$((${ALL30_END_S:-560} - SECONDS)); [ $b -gt 60 ] || b=60
  bounded_sanitize guess $b "tiled persistent" "rand10k@0:1 fireworks@0:3 pattern@0:1" "$GUESS_SANITIZE_OPTIONS" \
    "memcheck racecheck synccheck" &
  default_checks &
  timeout $b ./.dev/gpu_tests > "$L/gpu_tests.txt" 2>&1
  say "gpu_tests rc=$? (limit $b s) $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_tests.txt" | tr '\n' ' ') $(grep -c '^\[       OK \]' "$L/gpu_tests.txt") OK"
  grep -E '^\[  FAILED  \]' "$L/gpu_tests.txt" | head -20 | tee -a "$OUT/summary.txt"
  wait
}

# The recorded order's and the reused chunk's call (docs/PERFORMANCE.md,
# "The recorded order"): rand10k with the guessed start (windows 30, 45,
# 60) and this build with order=off on the early stop's scenes, then
# PART=all30 (the A/B builds of .ab/, the defaults, the checks, every GPU
# test and the early stop's sanitizer runs) within ALL30_END_S.
part_next30() {
  local o k
  for o in "" stop=on,start=guess stop=on,start=guess,window=30 stop=on,start=guess,window=60 \
           stop=on,start=guess,order=off; do
    k=${o//[=,]/_}
    CR_CUDA_OPTIONS=$o $R bench --repeat 5 --renderers tiled,persistent --scenes rand10k \
      --json "$L/next_rand10k_${k:-default}.json" > "$L/next_rand10k_${k:-default}.txt" 2>/dev/null
    say "rand10k ${o:-(defaults)}:"; say "$(grep -E '^rand10k +(tiled|persistent) +(events|clear)' "$L/next_rand10k_${k:-default}.txt" | sed 's/|.*//')"
  done
  CR_CUDA_OPTIONS=order=off $R bench --repeat 5 --renderers tiled,persistent \
    --scenes biglittle,littlebig,rand100k,rand1M --json "$L/next_order_off.json" > "$L/next_order_off.txt" 2>/dev/null
  say "order=off:"; say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent) +(events|clear)' "$L/next_order_off.txt" | sed 's/|.*//')"
  part_all30  # next_* stay in logs.tgz: only the first files of $OUT by name come back, summary.txt among them
}

# The staged bin.place's call (docs/PERFORMANCE.md, "bin.place staged in
# tile order"): benches of place=direct and place=staged interleaved (direct,
# staged, direct, staged) on the scenes the counting sort bins, snowsingle
# and micro2M by this build and by .ab/render_lite (the snow ramp's and the
# strip masks' atomics' A/B), then, beside
# each other and untimed, --check with place=staged on every scene, the
# binning GPU tests and compute-sanitizer through the staged kernel, all
# stopped by PLACE_END_S (seconds since the start; default 560).
PLACE_SANITIZE_OPTIONS="count=on,bins=sort,direct=0,coarse=1,spec=tight,place=staged count=on,bins=sort,direct=0,coarse=4,place=staged count=on,bins=sort,direct=0,coarse=1,chunks=32,strips=on,place=staged"
part_place30() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  local i o b
  for i in 1 2; do
    for o in place=direct place=staged; do
      CR_CUDA_OPTIONS=$o $R bench --repeat ${PLACE_REPEAT:-3} --renderers tiled,ftb --scenes rand100k,rand1M,micro2M,snowsingle \
        --json "$L/place_${i}_${o#place=}.json" > "$L/place_${i}_${o#place=}.txt" 2>/dev/null
      say "$o ($i):"; say "$(grep -E '^[A-Za-z0-9]+ +(tiled|ftb) +(events|clear)' "$L/place_${i}_${o#place=}.txt")"
    done
  done
  [ -d .ab ] || [ ! -f .ab.tar.xz ] || tar -xJf .ab.tar.xz
  for i in 1 2; do  # this build against .ab/render_lite (main): snow's ramp (snowsingle), the strip masks' 32-bit atomics (micro2M)
    for o in this lite; do
      local bin=$R; [ $o = lite ] && bin=.ab/render_lite
      [ -x "$bin" ] || continue
      $bin bench --repeat ${PLACE_REPEAT:-3} --renderers tiled,persistent,ftb --scenes snowsingle,micro2M,rgb,pattern \
        --json "$L/ramp_${i}_$o.json" > "$L/ramp_${i}_$o.txt" 2>/dev/null
      say "snowsingle, micro2M, rgb, pattern, $o ($i):"
      say "$(grep -E '^(snowsingle|micro2M|rgb|pattern) +(tiled|persistent|ftb) +(events|clear)' "$L/ramp_${i}_$o.txt")"
    done
  done
  b=$((${PLACE_END_S:-560} - SECONDS)); [ $b -gt 60 ] || b=60
  bounded_sanitize place $b tiled "rand10k@0:1 fireworks@0:3" "$PLACE_SANITIZE_OPTIONS" "racecheck synccheck memcheck" &
  scene_checks "tiled persistent ftb" place=staged pcheck "place=staged checks at 1024" &
  timeout $b ./.dev/gpu_tests --gtest_filter="${PLACE_TESTS:-GpuBinStage.*:GpuCounting.*:GpuLaterFrames.*:GpuPlan.*}" \
    > "$L/gpu_place.txt" 2>&1
  say "GPU tests (${PLACE_TESTS:-GpuBinStage, GpuCounting, GpuLaterFrames, GpuPlan}) rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_place.txt" | tr '\n' ' ') $(grep -c '^\[       OK \]' "$L/gpu_place.txt") OK"
  grep -E '^\[  FAILED  \]' "$L/gpu_place.txt" | head -20 | tee -a "$OUT/summary.txt"
  wait
}

# The recorded order launched ahead on a second stream (docs/PERFORMANCE.md,
# "bin.order beside binning"): this build against .ab/render_main (the order
# after binning), interleaved twice, tiled and persistent, with order=on for
# tiled in both (and the defaults); then the order's and the later frames'
# GPU tests and compute-sanitizer through the tiled and persistent kernels'
# later frames (walk back; guessed start with order=on).
part_side30() {
  [ -d .ab ] || [ ! -f .ab.tar.xz ] || tar -xJf .ab.tar.xz
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  local i b o
  for i in 1 2; do
    for b in "$R" .ab/render_main; do
      for o in "" order=on; do
        CR_CUDA_OPTIONS=$o $b bench --repeat 5 --renderers tiled,persistent --scenes biglittle,littlebig,rand100k,rand1M \
          > "$L/side_${i}_$(basename "$b")_${o:-default}.txt" 2>/dev/null
        say "$(basename "$b") ${o:-(defaults)} ($i):"
        say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent) +(events|clear)' "$L/side_${i}_$(basename "$b")_${o:-default}.txt" | sed 's/ | .*//')"
      done
    done
  done
  timeout 200 ./.dev/gpu_tests --gtest_filter='GpuCoalesce.*:GpuLaterFrames.*:GpuPersistent.*:GpuPlan.*' > "$L/gpu_side.txt" 2>&1
  say "GPU tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_side.txt" | tr '\n' ' ')"
  SANITIZE_KERNELS="tiled persistent" SANITIZE_SCENES="rand10k@0:3 fireworks@0:3" SANITIZE_VARIANTS="" \
    SANITIZE_OPTIONS="stop=on,start=walk stop=on,start=guess,order=on" sanitize side
}

part_compact30() {
  [ -d .cmp ] || [ ! -f .cmp.tar.xz ] || tar -xJf .cmp.tar.xz
  local C=$PWD/.cmp/render_compact i b k s z
  for i in 1 2; do
    for b in "$R" "$C"; do
      $b bench --repeat 5 --renderers tiled,persistent,ftb --scenes rand10k,pattern,biglittle,littlebig > "$L/compact_${i}_$(basename "$b").txt" 2>/dev/null
      say "$(basename "$b") ($i):"
      say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent|ftb) +(events|clear)' "$L/compact_${i}_$(basename "$b").txt" | sed 's/ | .*//')"
    done
  done
  for k in tiled persistent ftb; do
    ( for s in $SCENES; do $C --scene $s -r $k --check > "$L/cmp_${k}_$s.txt" 2>&1; echo "$k $s rc=$? $(tail -n 1 "$L/cmp_${k}_$s.txt")"; done
      for z in 1 257x129 1000x600; do for s in rgb pattern rand10k biglittle littlebig; do
        $C --scene $s -r $k --size $z -S 3 --check > "$L/cmp_${k}_${s}_$z.txt" 2>&1; echo "$k $s $z rc=$? $(tail -n 1 "$L/cmp_${k}_${s}_$z.txt")"; done; done
    ) > "$L/cmp_checks_$k.txt" &
  done
  wait
  say "compact checks: $(cat "$L"/cmp_checks_*.txt | grep -c 'rc=0 PASS') of $(cat "$L"/cmp_checks_*.txt | wc -l) PASS"; cat "$L"/cmp_checks_*.txt | grep -v 'rc=0 PASS' | tee -a "$OUT/summary.txt"
  R=$C SANITIZE_KERNELS="tiled ftb" SANITIZE_SCENES="rand10k@0:2 pattern@0:1 biglittle@0:1" SANITIZE_VARIANTS="" SANITIZE_OPTIONS="default" sanitize compact
}

# ab_benches NAME RENDERERS SCENES BUILD: this build and .ab/BUILD (from
# .ab.tar.xz), interleaved, two rounds, one `render bench` each; the device
# line first; the four JSON files come back as NAME_<round>_<build>.json
# (the call brings back eight files at most, summary and logs too).
ab_benches() {
  [ -d .ab ] || [ ! -f .ab.tar.xz ] || tar -xJf .ab.tar.xz
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  local i b f kinds=${2//,/|}
  for i in 1 2; do
    for b in "$R" ".ab/$4"; do
      f="$L/${1}_${i}_$(basename "$b")"
      $b bench --repeat 5 --renderers "$2" --scenes "$3" --json "$f.json" > "$f.txt" 2>/dev/null
      say "$(basename "$b") ($i):"; say "$(grep -E "^[A-Za-z0-9]+ +($kinds) +events" "$f.txt")"
    done
  done
  cp "$L/${1}"_*.json "$OUT/" 2>/dev/null
}

# The empty stages' A/B (PART=empty30 above).
part_empty30() {
  AB_NAME=empty AB_RENDERERS=tiled,persistent,ftb AB_BUILD=render_main AB_SANITIZE_NAME=counted_order \
    AB_SANITIZE_SCENES="rand100k@0:2 biglittle@0:2 fireworks@0:3" \
    AB_SANITIZE_OPTIONS="direct=0,count=on direct=0,count=on,coarse=4" \
    GPU_TESTS_FILTER='GpuStageTimeline.*:GpuLaterFrames.*:GpuCounting.*:GpuPersistent.*:GpuCoalesce.TheRecordedOrder*' \
    TESTS_LIMIT_S=${TESTS_LIMIT_S:-300} part_ab30
}

# The recorded list lengths' A/B (PART=lengths30 above).
part_lengths30() {
  AB_NAME=lengths AB_RENDERERS=persistent,tiled AB_SCENES=pattern,rand10k,micro2M,snowsingle,biglittle,rand1M \
    AB_BUILD=render_empty AB_BUDGET_S=${LENGTHS_BUDGET_S:-570} AB_SANITIZE_KERNELS=persistent \
    AB_SANITIZE_SCENES="${LENGTHS_SANITIZE_SCENES:-micro2M@0:3 rand10k@0:3 file:scenes/examples/snow_small.txt@0:3 hypnosis@0:3}" \
    AB_SANITIZE_OPTIONS="${LENGTHS_SANITIZE_OPTIONS:-direct=0 direct=0,count=on,coarse=4}" part_ab30
}

# A change's A/B (PART=ab30; also empty30's and lengths30's): this build
# against .ab/$AB_BUILD (from .ab.tar.xz; render_head by default, the build
# before the change), two rounds interleaved on AB_SCENES (issue 30's nine by
# default) with AB_RENDERERS; the default checks; compute-sanitizer on
# AB_SANITIZE_KERNELS (tiled and persistent) through AB_SANITIZE_SCENES
# beside the GPU tests of GPU_TESTS_FILTER, for TESTS_LIMIT_S or what is
# left of AB_BUDGET_S.
part_ab30() {
  local end=$((SECONDS + ${AB_BUDGET_S:-570}))
  ab_benches "${AB_NAME:-ab}" "${AB_RENDERERS:-tiled,persistent}" \
    "${AB_SCENES:-rgb,pattern,rand10k,rand100k,biglittle,littlebig,rand1M,micro2M,snowsingle}" "${AB_BUILD:-render_head}"
  default_checks
  SANITIZE_KERNELS=${AB_SANITIZE_KERNELS:-"tiled persistent"} SANITIZE_VARIANTS="" \
    SANITIZE_SCENES=${AB_SANITIZE_SCENES:-"rand10k@0:2 micro2M@0:2 file:scenes/examples/snow_small.txt@0:2 rand100k@0:2"} \
    SANITIZE_OPTIONS=${AB_SANITIZE_OPTIONS:-default} sanitize "${AB_SANITIZE_NAME:-${AB_NAME:-ab}}" &
  local left=$((end - SECONDS)); [ $left -gt 60 ] || left=60
  TESTS_LIMIT_S=${TESTS_LIMIT_S:-$left} part_gtest
  wait
}

# The GPU tests of GPU_TESTS_FILTER (all by default; not brief: a timeout
# still shows what passed), with the script's environment.
part_gtest() {
  timeout ${TESTS_LIMIT_S:-540} ./.dev/gpu_tests --gtest_filter="${GPU_TESTS_FILTER:-*}" > "$L/gpu_tests.txt" 2>&1
  say "gpu_tests (${GPU_TESTS_FILTER:-*}) rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$L/gpu_tests.txt" | tr '\n' ' ') $(grep -c '^\[       OK \]' "$L/gpu_tests.txt") OK"
  grep -E '^\[  FAILED  \]' "$L/gpu_tests.txt" | head -20 | tee -a "$OUT/summary.txt"
}
part_beside30() {
  [ -d .ab ] || [ ! -f .ab.tar.xz ] || tar -xJf .ab.tar.xz
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$L/device.txt"
  local i b o f
  for i in 1 2; do
    for b in "$R" .ab/render_main; do
      for o in "" order=on; do
        f="$L/beside_${i}_$(basename "$b")_$(echo "${o:-default}" | tr '=' '-').txt"  # no '=' in what comes back
        CR_CUDA_OPTIONS=$o $b bench --repeat 5 --renderers tiled,persistent --scenes biglittle,littlebig,rand100k,rand1M > "$f" 2>/dev/null
        say "$(basename "$b") ${o:-(defaults)} ($i):"
        say "$(grep -E '^[A-Za-z0-9]+ +(tiled|persistent) +(events|clear)' "$f" | sed 's/ | .*//')"
      done
    done
  done
  cp "$L"/beside_* "$OUT/" 2>/dev/null
  default_checks
  scene_checks "tiled" "order=on" ordercheck "tiled order=on checks at 1024"
  SANITIZE_KERNELS="tiled persistent" SANITIZE_SCENES="rand10k@0:3 fireworks@0:3 biglittle@0:3" SANITIZE_VARIANTS="" \
    SANITIZE_OPTIONS="stop=on stop=on,order=on" sanitize beside &
  TESTS_LIMIT_S=${TESTS_LIMIT_S:-400} part_gtest
  wait
}
# The GPU tests (not brief: a timeout still shows what passed), then the
# sanitizer through the early stop's kernels (PART=guess_sanitize).
part_tests30() {
  part_guess_sanitize &  # beside the tests: both only check, neither is timed
  GPU_TESTS_FILTER='*' part_gtest
  wait
}

# Nsight Compute where the targets miss, then the sanitizer through the
# quad layout's, the reciprocal's and the records' kernels.
part_profile_layout30() {
  part_profile30
  part_layout_sanitize
}

part_profile30() {
  local P="$R profile --timeout 240"
  CR_CUDA_OPTIONS=layout=strips,snowdiv=ieee $P --scene snowsingle -r tiled --json "$L/prof30_snow.json" \
    > "$L/prof30_snow.txt" 2>&1; say "profile snowsingle strips+IEEE rc=$?"
  CR_CUDA_OPTIONS=layout=quads,snowdiv=recip $P --scene snowsingle -r tiled --json "$L/prof30_snow_quads.json" \
    --compare "$L/prof30_snow.json" > "$L/prof30_snow_quads.txt" 2>&1; say "profile snowsingle quads+recip rc=$?"
  for s in micro2M rand1M rand10k; do
    $P --scene $s -r tiled --json "$L/prof30_$s.json" > "$L/prof30_$s.txt" 2>&1; say "profile $s rc=$?"
  done
  CR_CUDA_OPTIONS=start=walk $P --scene rand1M -r tiled --json "$L/prof30_rand1M_walk.json" \
    --compare "$L/prof30_rand1M.json" > "$L/prof30_rand1M_walk.txt" 2>&1; say "profile rand1M walk rc=$?"
  $P --scene biglittle -r tiled --json "$L/prof30_biglittle.json" > "$L/prof30_biglittle.txt" 2>&1; say "profile biglittle rc=$?"
  CR_CUDA_OPTIONS=start=guess $P --scene biglittle -r tiled --json "$L/prof30_biglittle_guess.json" \
    --compare "$L/prof30_biglittle.json" > "$L/prof30_biglittle_guess.txt" 2>&1; say "profile biglittle guess rc=$?"
  cp "$L"/prof30_* "$OUT/" 2>/dev/null
}

case "${PART:-check}" in
  issue30) part_issue30 ;;
  profile30) part_profile30 ;;
  defaults30) part_defaults30 ;;
  walk30) part_walk30 ;;
  next30) part_next30 ;;
  place30) part_place30 ;;
  side30) part_side30 ;;
  tests30) part_tests30 ;;
  beside30) part_beside30 ;;
  empty30) part_empty30 ;;
  lengths30) part_lengths30 ;;
  ab30) part_ab30 ;;
  gtest) part_gtest ;;
  compact30) part_compact30 ;;
  side_compact30) part_side30; part_compact30 ;;
  all30) part_all30 ;;
  profile_layout30) part_profile_layout30 ;;
  layout) part_layout ;;
  layout_sanitize) part_layout_sanitize ;;
  guess) part_guess ;;
  guess_sanitize) part_guess_sanitize ;;
  sanitize_paths) part_paths_sanitize; part_guess_sanitize ;;
  pathcheck) part_pathcheck ;;
  paths) part_paths ;;
  final) part_final ;;
  tests) part_tests ;;
  check) part_check ;;
  measure) part_measure ;;
  students) part_students ;;
  layouts) part_layouts ;;
  class) part_class ;;
esac
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
