#!/usr/bin/env python3
"""Checks the project's layering rules (docs/ARCHITECTURE.md):

1. The folder-level include graph of app/, render/ (each subfolder its own
   node), kernels/ and scenes/ has no cycle.
2. No host function in those folders is longer than 80 lines, no GPU
   function (__global__, __device__, or `__host__ __device__` via CR_HD) longer
   than 100. Lines are counted from the line of the opening brace to the line
   of the closing one.

Usage: check_layers.py [ROOT] [--graph]   (exit 1 on a violation)
The function finder is a small brace matcher over the code with comments,
strings and preprocessor lines removed: a '{' whose preceding text ends in a
parameter list (plus qualifiers or a constructor's initializer list) opens a
function body; control statements and lambdas inside a body count towards it.
"""
import os
import re
import sys

FOLDERS = ["app", "render", "kernels", "scenes"]
EXTS = (".h", ".hpp", ".cpp", ".cu", ".cuh")
HOST_LIMIT, GPU_LIMIT = 80, 100


def sources(root):
    for top in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(EXTS):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def include_graph(root):
    edges = {}
    for rel in sources(root):
        node = os.path.dirname(rel)
        for line in open(os.path.join(root, rel), encoding="utf-8", errors="replace"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            target = os.path.dirname(inc) if "/" in inc else node
            if not os.path.exists(os.path.join(root, inc)) and "/" not in inc:
                target = node
            if target and target != node and target.split("/")[0] in FOLDERS:
                edges.setdefault(node, set()).add(target)
    return edges


def find_cycle(edges):
    state, stack = {}, []

    def dfs(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = dfs(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            c = dfs(n)
            if c:
                return c
    return None


def strip_code(text):
    """Comments, string/char literals and preprocessor lines blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" ")
            i = j + 1
        elif c == "#" and (i == 0 or text[text.rfind("\n", 0, i) + 1:i].strip() == ""):
            j = i
            while True:  # preprocessor line with continuations
                k = text.find("\n", j)
                if k < 0:
                    j = n
                    break
                if text[k - 1] != "\\":
                    j = k
                    break
                out.append("\n")
                j = k + 1
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


CONTROL = re.compile(r"\b(if|for|while|switch|catch|return)\s*\($")
SIG_END = re.compile(r"\)\s*(const|override|final|noexcept|mutable|\s|->\s*[\w:<>,\s*&]+)*$")


def functions(text):
    """Yields (name, first_line, last_line, is_gpu) for each function body."""
    code = strip_code(text)
    i, n = 0, len(code)
    while i < n:
        if code[i] != "{":
            i += 1
            continue
        head_start = max(code.rfind(";", 0, i), code.rfind("}", 0, i), code.rfind("{", 0, i)) + 1
        head = code[head_start:i]
        flat = " ".join(head.split())
        # constructor initializer lists: "f(args) : a(x), b(y)"
        sig = re.sub(r"\)\s*:\s*[\w:]+\s*[({].*$", ")", flat) if re.search(r"\)\s*:\s*[\w:]", flat) else flat
        paren = sig.rfind("(")
        is_fn = SIG_END.search(sig) and paren > 0 and not CONTROL.search(sig[: paren + 1]) \
            and not sig[:paren].rstrip().endswith("]") and re.search(r"[\w>~=!+\-*/\]]\s*$", sig[:paren])
        depth, j = 0, i
        while j < n:
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if is_fn:
            name = re.findall(r"([\w:~]+(?:operator\S+)?)\s*$", sig[:paren])
            gpu = bool(re.search(r"__global__|__device__|\bCR_HD\b", flat))
            yield (name[0] if name else "?", code.count("\n", 0, i) + 1, code.count("\n", 0, j) + 1, gpu)
            i = j + 1
        else:
            i += 1


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    bad = 0
    edges = include_graph(root)
    if "--graph" in sys.argv:
        for k in sorted(edges):
            print(f"{k} -> {', '.join(sorted(edges[k]))}")
    cycle = find_cycle(edges)
    if cycle:
        print("include cycle between folders: " + " -> ".join(cycle))
        bad += 1
    longest = []
    for rel in sources(root):
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        for name, a, b, gpu in functions(text):
            lines = b - a + 1
            limit = GPU_LIMIT if gpu else HOST_LIMIT
            longest.append((lines, f"{rel}:{a} {name}"))
            if lines > limit:
                print(f"{rel}:{a}: {'GPU' if gpu else 'host'} function {name} is {lines} lines (limit {limit})")
                bad += 1
    longest.sort(reverse=True)
    print("longest functions: " + "; ".join(f"{w} ({n} lines)" for n, w in longest[:5]))
    print("layering: " + ("FAIL" if bad else "ok (no folder include cycle, every function within its limit)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
