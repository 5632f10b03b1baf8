# SPDX-License-Identifier: MIT
"""html_browser.py: `--format html` in a real browser (specs/html.md),
headless Chromium over WebDriver (tests/cli/webdriver.py), one session for
every page.  Run by tests/cli/output_html.sh:

  html_browser.py ROOFLINT TMPDIR             the tests
  html_browser.py --screenshot PAGE.html OUT.png   the README's picture

Every page is first checked as HTML5 by a structural parse (html.parser:
Debian 12 packages no HTML5 validator, neither vnu nor an HTML5 tidy):
one doctype, only the skeleton's elements, each closed in order, one data
block whose text is JSON with no '<' in it (R-HTML-002).

R-HTML-003: for every example, an ONNX model and a config.json, the page
renders with one table row per kernel of each view (counted from the JSON
of the same run) and no console error.  R-HTML-004, on the GPT-3 pipeline
example (18 kernels, one wave-tail warning):
  - the rows are --report's table, cell for cell (blanks folded);
  - sorting by time/mb puts first the report's slowest five, in order
    (fused fc 0.29 s 23.1%, o 0.29 s 23.1%, qkv 0.21 s, o 71.4 ms, o 56.4 ms);
  - hovering a point shows its row's fourteen figures; clicking it selects
    that row;
  - the bound filter 'memory' leaves the memory-bound kernels, counted from
    the JSON (9: tok, pe, x, h, fused residual1, h, fused residual2, x,
    loss), and the text filter 'qkv' the one row qkv;
  - the diagnostics are grouped by check, one item per diagnostic;
  - the plan section holds the dtype plan, the parallel plan, the pipeline
    and the collectives.
R-HTML-005: with -t h100_sxm,a100_sxm the view selector switches targets.
R-HTML-006: hostile text (a path with < & " ', a comment closing the
script) shows as text and runs nothing.
R-HTML-008, the sweep's page (tour.roof, --sweep B=1,2,4,8,16): the table
is the text sweep's, cell for cell; each chart (step time, footprint) has
a point per row, and clicking the third point selects the third row
(B = 4) and goes to its anchor; sorting by time/step orders the rows by
their step time, largest first (B = 16 .. 1); a grid of two lets
(--sweep B=1,8 --sweep D=1024,4096) has one line per D in each chart; the
hostile path of R-HTML-006 swept shows as text and runs nothing.
R-HTML-009, the diff's page (tour.roof against a copy with B = 64 and
relu for gelu): the totals, kernel and node tables are the text diff's,
cell for cell (kernels: h, x, logits, fused act; nodes: h, +h, x, logits,
-h); sorting the kernels by time/step puts first the one whose time grew
most (logits, 157 us -> 250 us: +93 us, against fused act's +35 us and
the matmuls' +22 us); the diagnostics that appeared (3) and went away (4)
are the JSON diff's, and a diagnostic's node link selects that node's row.
"""
import html.parser
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver import Browser, WebDriverError  # noqa: E402

VOID = {"meta", "link", "br", "input"}
SKELETON = {"html", "head", "meta", "link", "title", "style", "body", "noscript", "p",
            "main", "script"}


class PageCheck(html.parser.HTMLParser):
    """The page's skeleton, closed in order, and its data block."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.scripts, self.doctype = [], [], [], 0
        self.in_script = None

    def handle_decl(self, decl):
        self.doctype += decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        if tag not in SKELETON:
            self.errors.append("unexpected <%s>" % tag)
        if tag == "script":
            self.in_script = dict(attrs)
            self.scripts.append([self.in_script, ""])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes %s" % (tag, self.stack[-1:] or "nothing"))
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self.in_script is not None and self.stack and self.stack[-1] == "script":
            self.scripts[-1][1] += data


def check_page(path):
    """Structural HTML5 check; returns the page's data."""
    text = open(path, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>\n"), path
    p = PageCheck()
    p.feed(text)
    p.close()
    assert p.doctype == 1 and not p.errors and not p.stack, (path, p.errors, p.stack)
    kinds = [s[0].get("type") for s in p.scripts]
    assert kinds == ["application/json", None], (path, kinds)
    block = p.scripts[0][1]
    assert "<" not in block, path
    return json.loads(block)


def run(rooflint, args, out):
    with open(out, "w") as f:
        r = subprocess.run([rooflint] + args, stdout=f, stderr=subprocess.PIPE)
    assert r.returncode in (0, 1), (args, r.returncode, r.stderr.decode()[-400:])
    return r.returncode


def page_and_json(rooflint, tmp, name, args):
    page = os.path.join(tmp, name + ".html")
    run(rooflint, ["--format", "html"] + args, page)
    jpath = os.path.join(tmp, name + ".json")
    run(rooflint, ["--format", "json"] + args, jpath)
    return page, check_page(page), json.load(open(jpath))


def console_errors(b, what):
    bad = [m for m in b.logs() if m["level"] == "SEVERE"]
    assert not bad, (what, bad)


def dom_rows(b):
    return b.js("return [...document.querySelectorAll('#kernels tbody tr')]"
                ".map(tr => [...tr.cells].map(td => td.textContent))")


def set_select(b, css, value):
    b.js("const s = document.querySelector(arguments[0]); s.value = arguments[1];"
         "s.dispatchEvent(new Event('change'));", css, value)


def check_rows_per_view(b, page, doc, what):
    """R-HTML-003: a row per kernel in every view (JSON: one model entry per
    model and target, in the page's order)."""
    b.open(page)
    views = b.js("return document.querySelectorAll('#view option').length")
    if not doc["models"]:  # a file of targets only
        assert b.js("return document.getElementById('kernels') === null")
    else:
        assert (views or 1) == len(doc["models"]), (what, views, len(doc["models"]))
    for k, m in enumerate(doc["models"]):
        if views > 1:
            set_select(b, "#view", str(k))
        n = b.js("return document.querySelectorAll('#kernels tbody tr').length")
        assert n == len(m["kernels"]), (what, k, n, len(m["kernels"]))
        title = b.js("return document.querySelector('#chart h2').textContent")
        want = next(t["display"] for t in doc["targets"] if t["name"] == m["target"])
        assert title == "Roofline on " + want, (what, title, want)
    console_errors(b, what)


def report_table(rooflint, path):
    out = subprocess.run([rooflint, "--report", path], capture_output=True, text=True).stdout
    lines = out.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("node "))
    rows = []
    for l in lines[start + 1:]:
        if not l.strip():
            break
        rows.append(" ".join(l.split()))
    slow = []
    s = lines.index("slowest")
    for l in lines[s + 1:s + 6]:
        m = re.match(r"\s+\d+\. (.*?)\s+(\S+ \S+)\s+(\S+%)\s+(\S+)-bound\s+at (\S+)$", l)
        slow.append(m.groups())
    return rows, slow


def check_interaction(b, rooflint, tmp):
    """R-HTML-004 on the GPT-3 pipeline example."""
    ex = "examples/gpt3_175b_pipeline.roof"
    page, data, doc = page_and_json(rooflint, tmp, "gpt3", [ex])
    b.open(page)
    report_rows, slowest = report_table(rooflint, ex)
    rows = dom_rows(b)
    assert [" ".join(" ".join(r).split()) for r in rows] == report_rows, (rows, report_rows)
    b.click(b.find('#kernels th[data-col="11"] button'))
    rows = dom_rows(b)
    got = [(r[0], r[11], r[12], r[10], r[13]) for r in rows[:5]]
    assert got == slowest, (got, slowest)
    # hover: the first point's figures; click: its row
    pt = b.find("circle.point")
    i = b.js("return document.querySelector('circle.point').dataset.row")
    b.hover(pt)
    tip = b.js("const t = document.getElementById('tip');"
               "return [t.hidden, [...t.querySelectorAll('dd')].map(d => d.textContent)]")
    assert tip[0] is False and tip[1] == data["views"][0]["rows"][int(i)][:14], tip
    b.click(pt)
    sel = b.js("return [...document.querySelectorAll('#kernels tr.selected')].map(t => t.dataset.row)")
    assert sel == [i], (sel, i)
    detail = b.js("return document.getElementById('detail').textContent")
    assert data["views"][0]["rows"][int(i)][0] in detail, detail
    # filters
    kernels = doc["models"][0]["kernels"]
    set_select(b, "#filter-bound", "memory")
    rows = dom_rows(b)
    assert len(rows) == sum(k["bound"] == "memory" for k in kernels) == 14 and \
        all(r[10] == "memory" for r in rows), rows
    set_select(b, "#filter-bound", "")
    b.type(b.find("#filter-text"), "qkv")
    rows = dom_rows(b)
    assert [r[0] for r in rows] == ["qkv"], rows
    # diagnostics grouped by check, plan sections
    groups = b.js("return [...document.querySelectorAll('#diagnostics details')]"
                  ".map(g => [g.dataset.check, g.querySelectorAll('.diag').length])")
    want = {}
    for d in data["diags"]:
        want[d["check"]] = want.get(d["check"], 0) + 1
    assert groups == [list(x) for x in want.items()] and len(data["diags"]) == len(doc["diagnostics"]), groups
    titles = b.js("return [...document.querySelectorAll('#plan h3')].map(h => h.textContent)")
    for t in ("dtype plan", "parallel plan", "pipeline:", "collectives"):
        assert any(t in x for x in titles), (t, titles)
    console_errors(b, ex)


def check_hostile(b, rooflint, tmp):
    """R-HTML-006: a path and a comment that try to end the script."""
    d = os.path.join(tmp, "a<b>&\"c'")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "<!--x.roof")
    src = open("examples/tour.roof", encoding="utf-8").read()
    evil = "  # </script><script>window.pwned=1</script><!-- \xff"
    src = src.replace("    h = matmul(x, w1)", "    h = matmul(x, w1)" + evil)
    open(path, "w", encoding="latin-1").write(src)
    page = os.path.join(tmp, "hostile.html")
    run(rooflint, ["--format", "html", path], page)
    data = check_page(page)
    b.open(page)
    assert b.js("return window.pwned === undefined")
    files = b.js("return document.querySelector('.files').textContent")
    assert files == path, files
    row = b.js("return [...document.querySelectorAll('#kernels tbody tr')].findIndex(t => t.cells[0].textContent === 'h')")
    b.click(b.find('#kernels tbody tr[data-row="%d"]' % row))
    src_line = b.js("return document.querySelector('#detail .source code').textContent")
    assert "</script><script>window.pwned=1</script><!-- \ufffd" in src_line, src_line
    assert len(data["views"][0]["rows"]) == 4
    console_errors(b, "hostile")


def text_rows(lines):
    """Rows of an aligned text table: cells split on runs of 2+ blanks."""
    return [re.split(r"\s{2,}", l.strip()) for l in lines if l.strip()]


def sweep_dom(b, ti):
    return b.js("return [...document.querySelectorAll('#sweep-table-' + arguments[0] + ' tbody tr')]"
                ".map(tr => [...tr.cells].map(td => td.textContent))", ti)


def check_sweep(b, rooflint, tmp):
    """R-HTML-008: the sweep's page."""
    args = ["--sweep", "B=1,2,4,8,16", "examples/tour.roof"]
    page = os.path.join(tmp, "sweep.html")
    run(rooflint, ["--format", "html"] + args, page)
    data = check_page(page)
    assert data["kind"] == "sweep" and len(data["tables"]) == 1, data["kind"]
    text = subprocess.run([rooflint, "-w"] + args, capture_output=True, text=True).stdout
    want = text_rows(text.split("\n")[2:])
    b.open(page)
    assert sweep_dom(b, 0) == want, (sweep_dom(b, 0), want)
    for fig in ("step", "footprint"):
        n = b.js("return document.querySelectorAll('svg.sweep-chart[data-figure=\"' + arguments[0] +"
                 " '\"] circle.sweep-point').length", fig)
        assert n == 5, (fig, n)
    pts = b.js("return [...document.querySelectorAll('svg.sweep-chart[data-figure=\"step\"] circle')]"
               ".map(c => c.dataset.row)")
    assert pts == ["0", "1", "2", "3", "4"], pts
    b.click(b.find('svg.sweep-chart[data-figure="step"] a[href="#sweep-0-row-2"] circle'))
    sel = b.js("return [...document.querySelectorAll('#sweep-table-0 tr.selected')].map(t => t.id)")
    assert sel == ["sweep-0-row-2"], sel
    assert b.js("return location.hash") == "#sweep-0-row-2"
    col = data["tables"][0]["heads"].index("time/step")
    b.click(b.find('#sweep-table-0 th[data-col="%d"] button' % col))
    assert [r[0] for r in sweep_dom(b, 0)] == ["16", "8", "4", "2", "1"], sweep_dom(b, 0)
    console_errors(b, "sweep")
    # two swept lets: a line per value of the second
    page2 = os.path.join(tmp, "sweep2.html")
    run(rooflint, ["--format", "html", "--sweep", "B=1,8", "--sweep", "D=1024,4096",
                   "examples/tour.roof"], page2)
    check_page(page2)
    b.open(page2)
    lines = b.js("return [...document.querySelectorAll('svg.sweep-chart')].map(g => "
                 "g.querySelectorAll('polyline.series').length)")
    assert lines == [2, 2], lines
    assert len(sweep_dom(b, 0)) == 4
    console_errors(b, "sweep of two lets")


def check_sweep_hostile(b, rooflint, tmp):
    """R-HTML-006 on the sweep's page (the file of check_hostile)."""
    path = os.path.join(tmp, "a<b>&\"c'", "<!--x.roof")
    page = os.path.join(tmp, "sweep_hostile.html")
    run(rooflint, ["--format", "html", "--sweep", "B=1,2", path], page)
    check_page(page)
    b.open(page)
    assert b.js("return window.pwned === undefined")
    assert b.js("return document.querySelector('.files').textContent") == path
    console_errors(b, "sweep hostile")


def check_diff(b, rooflint, tmp):
    """R-HTML-009: the diff's page."""
    src = open("examples/tour.roof", encoding="utf-8").read()
    new = os.path.join(tmp, "tour_new.roof")
    with open(new, "w", encoding="utf-8") as f:
        f.write(src.replace("let B = 8 ", "let B = 64").replace("h = gelu(h)", "h = relu(h)"))
    args = ["diff", "examples/tour.roof", new]
    page = os.path.join(tmp, "diff.html")
    with open(page, "w") as f:
        r = subprocess.run([rooflint] + args[:1] + ["--format", "html"] + args[1:], stdout=f)
    assert r.returncode == 0, r.returncode
    data = check_page(page)
    assert data["kind"] == "diff", data["kind"]
    doc = json.loads(subprocess.run([rooflint, "diff", "--format", "json"] + args[1:],
                                    capture_output=True, text=True).stdout)
    lines = subprocess.run([rooflint] + args, capture_output=True, text=True).stdout.split("\n")
    head = next(i for i, l in enumerate(lines) if l.strip().startswith("node"))
    end = lines.index("", head)
    nodes = text_rows(lines[head + 1:end])
    tot = next(i for i, l in enumerate(lines) if l.strip().startswith("totals"))
    totals = text_rows(lines[tot + 1:lines.index("", tot)])
    b.open(page)
    dom = lambda css: b.js("return [...document.querySelectorAll(arguments[0])]"
                           ".map(tr => [...tr.cells].map(td => td.textContent))", css)
    assert dom("#totals-0 tbody tr") == totals, (dom("#totals-0 tbody tr"), totals)
    got_nodes = dom("#diff-0-nodes tbody tr")
    want_nodes = [r for r in nodes if r[2] != "fused"]
    assert got_nodes == want_nodes, (got_nodes, want_nodes)
    kernels = [r[1] for r in dom("#diff-0-kernels tbody tr")]
    assert kernels == ["h", "x", "logits", "fused act"], kernels
    b.click(b.find('#diff-0-kernels th[data-col="8"] button'))
    kernels = [r[1] for r in dom("#diff-0-kernels tbody tr")]
    assert kernels == ["logits", "fused act", "h", "x"], kernels
    for key, want in (("appeared", 3), ("disappeared", 4)):
        n = b.js("return document.querySelectorAll('#' + arguments[0] + ' p.diag').length", key)
        assert n == want == len(doc["diagnostics"][key]), (key, n)
    b.click(b.find("#appeared p.diag a.node"))
    sel = b.js("return [...document.querySelectorAll('tr.selected')].map(t => t.dataset.node)")
    assert sel == ["h"], sel
    console_errors(b, "diff")


def main():
    if sys.argv[1] == "--screenshot":
        b = Browser(1280, 1500)
        try:
            b.open(sys.argv[2])
            time.sleep(0.2)
            b.screenshot(sys.argv[3])
        finally:
            b.close()
        return
    rooflint, tmp = sys.argv[1], sys.argv[2]
    cases = [[f] for f in sorted(os.listdir("examples")) if f.endswith(".roof")]
    cases = [["examples/" + c[0]] for c in cases]
    cases += [["examples/seed/" + f] for f in sorted(os.listdir("examples/seed"))
              if f.endswith(".roof")]
    cases += [["tests/onnx/wire/ir10_opset21_block.onnx"], ["tests/hf/bert_base.json"],
              ["-t", "h100_sxm,a100_sxm", "examples/llama2_7b_decode.roof"]]
    b = Browser()
    try:
        for n, args in enumerate(cases):
            page, _, doc = page_and_json(rooflint, tmp, "case%d" % n, args)
            check_rows_per_view(b, page, doc, " ".join(args))
        check_interaction(b, rooflint, tmp)
        check_hostile(b, rooflint, tmp)
        check_sweep(b, rooflint, tmp)
        check_sweep_hostile(b, rooflint, tmp)
        check_diff(b, rooflint, tmp)
    finally:
        b.close()
    print("html_browser: %d pages, interaction, hostile input, sweep and diff: ok" % len(cases))


if __name__ == "__main__":
    try:
        main()
    except WebDriverError as e:
        print("html_browser: %s" % e)
        sys.exit(1)
