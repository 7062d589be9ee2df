#!/usr/bin/env python3
"""The course's grading procedure (COURSE_INTERFACE.md, "The course's grading": the
steps of checker.py, written here from those facts) run on a course folder's OWN binary
(built by its own Makefile) and the course's render_ref, to compare `render grade` with
the course on the course's terms (docs/STUDENTS.md, "Comparing with the course's own
procedure"). For each scored scene: the folder binary's `-c SCENE -s 1024 -S SEED`
verdict, then 3 runs each of `-r cuda -b 0:4 SCENE -s 1024 -f logs/output` for both
binaries, the minimum Total, and the course's score formula. Runs in WORKDIR (put the
snow.par there). Prints one line a scene and the total; writes WORKDIR/course_grade.json.
With --no-seeds (a folder binary of course layout A or B, whose main has no -S), the check
is `-c SCENE -s 1024`, as those years' checkers ran it.

usage: course_procedure.py [--no-seeds] FOLDER_BINARY REF_BINARY WORKDIR [SEEDS.json]
"""
import json
import math
import os
import re
import subprocess
import sys

SCENES = ["rgb", "rand10k", "rand100k", "pattern", "snowsingle", "biglittle", "rand1M", "micro2M"]


def total(cmd, work):
    """The last 'Total:' time (ms) a run prints, or None."""
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    m = re.findall(r"Total:\s+([0-9.]+)", p.stdout)
    return float(m[-1]) if m else None


def score(ok, t, tr):
    """The course's per-scene score (COURSE_INTERFACE.md)."""
    if not ok:
        return 0
    if t <= 1.2 * tr:
        return 9
    if t > 10 * tr:
        return 2
    return 2 + math.ceil(7 * tr / t)


def best(times):
    got = [x for x in times if x is not None]
    return min(got) if got else None


def main():
    args = sys.argv[1:]
    no_seeds = "--no-seeds" in args
    args = [a for a in args if a != "--no-seeds"]
    stu, ref, work = args[0], args[1], args[2]
    seeds = json.load(open(args[3])) if len(args) > 3 else {}
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    timed = ["-r", "cuda", "-b", "0:4"]
    out = {}
    for s in SCENES:
        seed = [] if no_seeds else ["-S", str(seeds.get(s, 0))]
        c = subprocess.run([stu, "-c", s, "-s", "1024"] + seed + ["-f", "logs/output"],
                           cwd=work, capture_output=True, text=True)
        ok = c.returncode == 0
        ts = [total([stu] + timed + [s, "-s", "1024", "-f", "logs/output"], work) for _ in range(3)]
        trs = [total([ref] + timed + [s, "-s", "1024", "-f", "logs/output"], work) for _ in range(3)]
        t, tr = best(ts), best(trs)
        sc = score(ok, t, tr) if t and tr else None
        out[s] = {"correct": ok, "stu_times": ts, "ref_times": trs, "stu_time": t, "ref_time": tr, "score": sc}
        print("%-10s correct=%s T=%s T_ref=%s score=%s  (T runs %s, T_ref runs %s)" % (s, ok, t, tr, sc, ts, trs),
              flush=True)
    print("course total:", sum(v["score"] or 0 for v in out.values()))
    with open(os.path.join(work, "course_grade.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
