# SPDX-License-Identifier: MIT
"""`make bench`'s language-server rows (tests/bench/bench.sh):

    /usr/bin/python3 tests/bench/lsp_bench.py ROOFLINT FILE EDITS [-W CHECK]...

1. change to diagnostics: a didChange of FILE's whole text (a let's value
   flipped, so each text differs) until its publishDiagnostics arrives,
   against a plain lint of the same text (`rooflint -W ... FILE`, process
   start included); the best of 20 of each.  Goal: within 1.5x.
2. memory over EDITS edits, each waited for: the server's resident set
   after the first 100 and after all of them.  Goal: flat (within 10%),
   as R-LSP-011 says (each analysis freed when the next is made).
Prints one line per measurement and a MET/MISS verdict per goal."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lsp"))
from client import Client  # noqa: E402


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def lint_time(rooflint, flags, path, reps):
    best = None
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run([rooflint] + flags + [path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        t = time.perf_counter() - t0
        best = t if best is None or t < best else best
    return best


def edit(c, uri, text, version):
    """One change, timed until its diagnostics come back."""
    t0 = time.perf_counter()
    c.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"text": text}]})
    while True:
        m = c.recv()
        if m.get("method") == "textDocument/publishDiagnostics" and \
                m["params"].get("version") == version:
            return time.perf_counter() - t0


def main():
    rooflint, path, edits = sys.argv[1], sys.argv[2], int(sys.argv[3])
    flags = sys.argv[4:]
    warnings = [flags[i + 1] for i in range(len(flags) - 1) if flags[i] == "-W"]
    text = open(path).read()
    texts = [text.replace("let B = 1", "let B = %d" % b) for b in (1, 2)]
    uri = "file://" + os.path.abspath(path)
    c = Client(rooflint, timeout=60)
    c.request("initialize", {"capabilities": {},
                             "initializationOptions": {"warnings": warnings}})
    c.recv()
    c.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "roof", "version": 0, "text": text}})
    c.recv()
    lines = text.count("\n")
    lint = lint_time(rooflint, flags, path, 20)
    change = min(edit(c, uri, texts[v % 2], v) for v in range(1, 21))
    ratio = change / lint
    print("lsp: %d lines: change to diagnostics %.2f ms, plain lint %.2f ms: %.2fx"
          % (lines, change * 1e3, lint * 1e3, ratio))
    version = 21
    while version < 121:
        edit(c, uri, texts[version % 2], version)
        version += 1
    first = rss_kib(c.proc.pid)
    while version < edits + 21:
        edit(c, uri, texts[version % 2], version)
        version += 1
    last = rss_kib(c.proc.pid)
    print("lsp: resident set after 100 edits %.1f MiB, after %d edits %.1f MiB: %.2fx"
          % (first / 1024, edits, last / 1024, last / first))
    c.request("shutdown")
    c.recv()
    c.notify("exit")
    c.proc.wait(timeout=60)
    print("  %-4s lsp: change to diagnostics within 1.5x of a lint of %d lines: %.2fx"
          % ("MET" if ratio <= 1.5 else "MISS", lines, ratio))
    print("  %-4s lsp: memory flat over %d edits (within 10%%): %.2fx"
          % ("MET" if last <= first * 1.10 else "MISS", edits, last / first))


if __name__ == "__main__":
    main()
