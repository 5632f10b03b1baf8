#!/bin/sh
# function_length.sh: no function in src/ is longer than 80 lines, from the
# first line of its signature to its closing brace (ARCHITECTURE.md: a
# function is short enough to read at once).  A function is a line at
# column 0 that ends its signature with ") {" (or a "{" line after it) and
# runs to the next "}" at column 0, which is how every file here is laid out.
set -u
exec /usr/bin/python3 - "$@" <<'PY'
import glob, re, sys

LIMIT = 80
over = []
for path in sorted(glob.glob("src/**/*.c", recursive=True)):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^[A-Za-z_].*\)\s*\{\s*$", line) and "=" not in line.split("(")[0]:
            start = i  # walk back over the signature's earlier lines
            while start > 0 and lines[start - 1].strip() and \
                    not lines[start - 1].rstrip().endswith((";", "}", "*/")) and \
                    not lines[start - 1].startswith(("#", "/*", " *")):
                start -= 1
            end = i + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
            n = end - start + 1
            if n > LIMIT:
                over.append("%s:%d: %s is %d lines" % (path, start + 1, lines[start].strip()[:60], n))
            i = end
        i += 1
if len(glob.glob("src/**/*.c", recursive=True)) < 10:
    print("FAIL function_length: found no sources (run from the repository root)")
    sys.exit(1)
for o in over:
    print("FAIL function_length: " + o)
sys.exit(1 if over else 0)
PY
