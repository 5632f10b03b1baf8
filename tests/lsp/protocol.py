# SPDX-License-Identifier: MIT
"""`rooflint lsp` driven over a pipe by a scripted session; every message
the server sends is compared, exactly, with tests/lsp/protocol.expected.json
(`--write` rewrites it after a change that means to change it).

    /usr/bin/python3 tests/lsp/protocol.py BUILD/rooflint [--write]

The document is tests/lsp/decode.roof.  Its figures, by hand (H100 SXM,
3.35 TB/s, fp32 vector peak 67.0 TFLOP/s because w is fp32):
  y = matmul(x, w): 2 x 1 x 4096 x 4096 = 33.6 MFLOP; bytes x (bf16,
  8 KB) + w (fp32, 67.1 MB) + y (fp32, 16 KB) = 67.1 MB; 0.500 FLOP/B
  against a ridge of 67.0e12 / 3.35e12 = 20.0; attainable 3.35e12 x 0.5
  = 1.7 TFLOP/s; time 67.1 MB / 3.35 TB/s = 20.0 us, 99.9% of a step
  that adds the fused region act (relu, neg), 9.78 ns twice;
  blocks ceil(1/128) x ceil(4096/128) = 32 on 132 SMs: 1 wave, 24.2%;
  the compute roof at 2B x 4096^2 / (6B x 4096 + 4 x 4096^2) >= 20, that
  is 8192B >= 120B + 327680, B >= 40.6: 41.
Rules: R-LSP-001 (framing), R-LSP-002 (a damaged frame is skipped),
R-LSP-003 (the size limit), R-LSP-004 (exit codes), R-LSP-005 (JSON-RPC
errors), R-LSP-006 (before initialize), R-LSP-007 (unknown methods,
params), R-LSP-008 (after shutdown), R-LSP-009 (UTF-16 positions),
R-LSP-010 (the latest text wins), R-LSP-012 (diagnostics), R-LSP-013
(hover), R-LSP-014 (navigation), R-LSP-015 (code actions), R-LSP-016
(completion), R-LSP-017 (inlay hints), R-LSP-018 (settings), R-LSP-020
(a config.json).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from client import Client  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
URI = "file:///work/decode.roof"
DOC = {"textDocument": {"uri": URI}}


def at(line, ch):
    return dict(DOC, position={"line": line, "character": ch})


def whole():
    return dict(DOC, range={"start": {"line": 0, "character": 0},
                            "end": {"line": 20, "character": 0}})


class Session:
    def __init__(self, rooflint):
        self.c = Client(rooflint)
        self.log = []

    def step(self, name, send, n):
        """send() writes; then n messages are read."""
        if os.environ.get("LSP_TRACE"):
            print(name, file=sys.stderr)
        send(self.c)
        got = [self.c.recv() for _ in range(n)]
        self.log.append({"step": name, "recv": got})

    def req(self, name, method, params=None):
        self.step(name, lambda c: c.request(method, params), 1)


def raw(data):
    return lambda c: c.send_raw(data)


def framed(body):
    return raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def main_session(s, text):
    # R-LSP-006: a request before initialize
    s.req("hover before initialize", "textDocument/hover", at(0, 0))
    # the unknown -W is said in a log message, before the answer
    s.step("initialize", lambda c: c.request("initialize",
          {"processId": None, "rootUri": None, "capabilities": {},
           "initializationOptions": {"inlayHints": True,
                                     "warnings": ["no-overhead-bound", "no-such-check"]}}), 2)
    s.c.notify("initialized", {})
    s.step("didOpen", lambda c: c.notify("textDocument/didOpen", {
        "textDocument": {"uri": URI, "languageId": "roof", "version": 1, "text": text}}), 1)
    s.req("hover: an op's name", "textDocument/hover", at(7, 7))
    s.req("hover: an op's statement", "textDocument/hover", at(7, 2))
    s.req("hover: a let", "textDocument/hover", at(2, 4))
    s.req("hover: a weight read", "textDocument/hover", at(7, 16))
    s.req("codeAction on line 8", "textDocument/codeAction",
          dict(DOC, range={"start": {"line": 7, "character": 6},
                           "end": {"line": 7, "character": 6}},
               context={"diagnostics": []}))
    s.req("definition of w", "textDocument/definition", at(7, 16))
    s.req("references of y", "textDocument/references",
          dict(at(7, 2), context={"includeDeclaration": True}))
    s.req("references of B, no declaration", "textDocument/references",
          dict(at(2, 4), context={"includeDeclaration": False}))
    s.req("documentSymbol", "textDocument/documentSymbol", DOC)
    s.req("completion in the model", "textDocument/completion", at(11, 6))
    s.req("inlayHint", "textDocument/inlayHint", whole())


def change_session(s, text):
    # R-LSP-010: two changes in one write: one analysis, of version 3
    v2 = text.replace("let B = 1", "let B = 2")
    v3 = text.replace("let B = 1", "let B = 8")

    def two(c):
        msgs = b""
        for v, t in ((2, v2), (3, v3)):
            body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange",
                               "params": {"textDocument": {"uri": URI, "version": v},
                                          "contentChanges": [{"text": t}]}}).encode()
            msgs += b"Content-Length: %d\r\n\r\n" % len(body) + body
        c.send_raw(msgs)
    s.step("two changes, the latest wins", two, 1)
    s.req("hover: the let after the change", "textDocument/hover", at(2, 4))
    # R-LSP-018: -D and -W from didChangeConfiguration
    s.step("didChangeConfiguration", lambda c: c.notify(
        "workspace/didChangeConfiguration",
        {"settings": {"rooflint": {"defines": ["B=64"], "warnings": ["no-stray-fp32"],
                                   "inlayHints": False}}}), 1)
    s.req("hover: the let under -D", "textDocument/hover", at(2, 4))
    s.req("inlayHint, off", "textDocument/inlayHint", whole())
    # R-LSP-009: a line with a character outside the BMP (2 UTF-16 units)
    s.step("didOpen: UTF-16", lambda c: c.notify("textDocument/didOpen", {
        "textDocument": {"uri": "file:///work/u.roof", "languageId": "roof",
                         "version": 1,
                         "text": "# \U0001F600\nlet N = 1  # \U0001F600 # rooflint: ignore[memory-boun]\n"}}), 1)
    # the unknown check's name starts at byte 37 of line 2 and at UTF-16
    # unit 35: "let N = 1  # " (13), the emoji (4 bytes, 2 units), " #
    # rooflint: ignore[" (20)
    s.req("codeAction: UTF-16", "textDocument/codeAction",
          {"textDocument": {"uri": "file:///work/u.roof"},
           "range": {"start": {"line": 1, "character": 35}, "end": {"line": 1, "character": 35}},
           "context": {"diagnostics": []}})
    # R-LSP-012: closing a document clears its diagnostics
    s.step("didClose", lambda c: c.notify("textDocument/didClose", {
        "textDocument": {"uri": "file:///work/u.roof"}}), 1)


def config_session(s):
    """R-LSP-020: a config.json the user opens gets its diagnostics on its
    keys, the generated statement quoted in the message; an invalid one
    its JSON error where jansson places it; other requests are refused."""
    uri = "file:///work/gpt2.json"
    with open(os.path.join(HERE, "..", "hf", "gpt2.json")) as f:
        cfg = f.read()
    s.step("didOpen: a config.json", lambda c: c.notify("textDocument/didOpen", {
        "textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": cfg}}), 1)
    s.req("hover on a config.json", "textDocument/hover",
          {"textDocument": {"uri": uri}, "position": {"line": 29, "character": 3}})
    bad = cfg.replace('"vocab_size": 50257', '"vocab_size": 50257,')
    s.step("didChange: invalid JSON", lambda c: c.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": bad}]}), 1)
    s.step("didClose: the config", lambda c: c.notify("textDocument/didClose", {
        "textDocument": {"uri": uri}}), 1)


def error_session(s):
    s.step("not JSON", framed(b"{\"jsonrpc\": \"2.0\", \"id\": 1,"), 1)
    s.step("a JSON array", framed(b"[1, 2]"), 1)
    s.step("no jsonrpc member", framed(b"{\"id\": 7, \"method\": \"shutdown\"}"), 1)
    s.step("an id of the wrong type", framed(
        b"{\"jsonrpc\": \"2.0\", \"id\": [1], \"method\": \"shutdown\"}"), 1)
    s.req("an unknown method", "textDocument/rename", at(0, 0))
    s.step("an unknown notification is not answered; the next request is",
           lambda c: (c.notify("$/setTrace", {"value": "off"}),
                      c.request("textDocument/hover", {"textDocument": {"uri": 5}})), 1)
    s.req("params of the wrong type", "textDocument/hover", [1])
    s.req("a position of the wrong type", "textDocument/hover",
          dict(DOC, position={"line": "one", "character": 0}))
    s.req("a document not open", "textDocument/hover",
          {"textDocument": {"uri": "file:///nowhere.roof"},
           "position": {"line": 0, "character": 0}})
    s.step("a Content-Length that is not a number", raw(
        b"Content-Length: ten\r\n\r\n{}"), 1)
    body = b"{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"textDocument/x\"}"
    s.step("a frame without Content-Length, then a request", raw(
        b"Content-Type: x\r\n\r\n" + b"Content-Length: %d\r\n\r\n" % len(body) + body), 2)
    big = (64 << 20) + 1
    s.step("a message over the limit", lambda c: c.send_raw(
        b"Content-Length: %d\r\n\r\n" % big + b" " * big), 1)
    s.req("initialize again", "initialize", {"capabilities": {}})
    s.req("shutdown", "shutdown")
    s.req("a request after shutdown", "textDocument/hover", at(0, 0))


def exit_status(rooflint, shutdown):
    c = Client(rooflint)
    c.request("initialize", {"capabilities": {}})
    c.recv()
    if shutdown:
        c.request("shutdown")
        c.recv()
    c.notify("exit")
    return c.proc.wait(timeout=10)


def closed_output_status(rooflint):
    """The client closes the server's output: the next answer fails, and
    the server ends (status 1) instead of dying by SIGPIPE."""
    c = Client(rooflint)
    c.proc.stdout.close()
    c.request("initialize", {"capabilities": {}})
    return c.proc.wait(timeout=10)


def eof_status(rooflint):
    c = Client(rooflint)
    return c.wait()


def help_ops(rooflint):
    """The ops `rooflint --help` lists, in its order: (name, doc)."""
    import subprocess
    out = subprocess.run([rooflint, "--help"], capture_output=True, text=True).stdout
    ops, inside = [], False
    for line in out.splitlines():
        if line == "ops (name, class, what it computes):":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            name, _cls, doc = line.split(None, 2)
            ops.append((name, doc))
    return ops


def fold_op_items(log, rooflint):
    """The completion's op items (kind 3, Function) are every op of --help,
    in its order, each with its row's doc: checked here against the binary
    rather than listed in the expected file, so that an op row added to
    src/ops.def changes no expected output (issue 27)."""
    ops = help_ops(rooflint)
    for e in log:
        if e.get("step") != "completion in the model":
            continue
        res = e["recv"][0]["result"]
        items = res["items"] if isinstance(res, dict) else res
        first = next((k for k, i in enumerate(items) if i.get("kind") == 3), len(items))
        got = [(i["label"], i.get("documentation"), i.get("detail", ""))
               for i in items if i.get("kind") == 3]
        ok = len(ops) > 0 and [(n, d) for n, d, _ in got] == ops and \
            all(det.startswith(n + "(") for n, _, det in got)
        rest = [i for i in items if i.get("kind") != 3]
        rest.insert(first, {"label": "every op of rooflint --help, in its order, with its doc"
                            if ok else "the op items differ from rooflint --help: %r" % got})
        if isinstance(res, dict):
            res["items"] = rest
        else:
            e["recv"][0]["result"] = rest


def main():
    rooflint = sys.argv[1]
    write = "--write" in sys.argv
    with open(os.path.join(HERE, "decode.roof")) as f:
        text = f.read()
    s = Session(rooflint)
    main_session(s, text)
    change_session(s, text)
    config_session(s)
    error_session(s)
    s.c.notify("exit")
    status = s.c.proc.wait(timeout=10)
    s.log.append({"step": "exit after shutdown", "status": status})
    # R-LSP-004: exit without shutdown is 1, and so is the end of the input
    s.log.append({"step": "exit without shutdown",
                  "status": exit_status(rooflint, False)})
    s.log.append({"step": "the input ends", "status": eof_status(rooflint)})
    s.log.append({"step": "the output is closed",
                  "status": closed_output_status(rooflint)})
    fold_op_items(s.log, rooflint)
    path = os.path.join(HERE, "protocol.expected.json")
    got = json.dumps(s.log, indent=1, ensure_ascii=False) + "\n"
    if write:
        with open(path, "w") as f:
            f.write(got)
        return 0
    with open(path) as f:
        want = f.read()
    if got == want:
        return 0
    import difflib
    sys.stdout.writelines(list(difflib.unified_diff(
        want.splitlines(True), got.splitlines(True), "expected", "got"))[:80])
    return 1


if __name__ == "__main__":
    sys.exit(main())
