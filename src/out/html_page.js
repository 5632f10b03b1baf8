/* SPDX-License-Identifier: MIT */
/* html_page.js: draws the rooflint page from its JSON data block
 * (specs/html.md).  Every string from the data reaches the page as a text
 * node or an attribute value set through the DOM, never as markup. */
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("rooflint-data").textContent);
  const app = document.getElementById("app");
  const SVGNS = "http://www.w3.org/2000/svg";
  /* A row: the report's 14 cells, then the raw figures (R-HTML-004). */
  const R = { count: 14, flops: 15, bytes: 16, intensity: 17, peak: 18,
              attainable: 19, time: 20, file: 21, line: 22 };
  /* The raw figure each column sorts by; text columns sort as text. */
  const SORT_BY = { 3: R.count, 4: R.flops, 5: R.bytes, 6: R.intensity, 7: R.peak,
                    8: R.peak, 9: R.attainable, 11: R.time, 12: R.time };
  /* Rows drawn at once; the rest behind a button, so a 100,000-kernel
   * page opens and sorts without laying out 1.4 M cells. */
  const ROW_LIMIT = 500;
  const state = { view: 0, sortCol: -1, sortDir: 1, selected: -1,
                  op: "", bound: "", prec: "", text: "", limit: ROW_LIMIT };

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    for (const kid of kids) {
      if (kid === null || kid === undefined) continue;
      e.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
    }
    return e;
  }
  function svgEl(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  const sourceLine = new Map();
  for (const [file, line, text] of data.lines || []) sourceLine.set(file + ":" + line, text);
  function fileName(i) { return i >= 0 && i < data.files.length ? data.files[i] : "-"; }
  function diagsAt(file, line) {
    return data.diags.filter((d) => d.file === file && d.line === line && line > 0);
  }

  /* ------------------------------------------------------------ header */
  function header() {
    const names = data.inputs.map(fileName).join(", ");
    document.title = "rooflint: " + names;
    const h = el("header", {}, el("h1", {}, "rooflint report"),
                 el("p", { class: "files" }, names));
    if (data.views.length > 1) {
      const sel = el("select", { id: "view", "aria-label": "model and target" });
      data.views.forEach((v, i) => {
        sel.appendChild(el("option", { value: String(i) },
          v.model + " on " + v.target + " (" + fileName(v.file) + ")"));
      });
      sel.addEventListener("change", () => showView(Number(sel.value)));
      h.appendChild(el("label", {}, "view ", sel));
    }
    const nav = el("nav", {});
    for (const [id, label] of [["summary", "Summary"], ["chart", "Roofline"],
        ["table", "Kernels"], ["diagnostics", "Diagnostics"], ["plan", "Plan and parallelism"]])
      nav.appendChild(el("a", { href: "#" + id }, label));
    h.appendChild(nav);
    return h;
  }

  /* ----------------------------------------------------------- summary */
  function bar(id, parts, whole, title) {
    const b = el("div", { class: "bar", id: id, role: "img", "aria-label": title });
    const legend = el("ul", { class: "legend" });
    parts.forEach(([label, value, text], i) => {
      const pct = whole > 0 ? Math.min(100, (100 * value) / whole) : 0;
      const seg = el("span", { class: "seg c" + (i % 8), title: label + ": " + text });
      /* a part of nothing keeps its colour and legend entry, so colours
       * mean the same part in every view */
      seg.style.width = pct + "%";
      b.appendChild(seg);
      legend.appendChild(el("li", {}, el("span", { class: "swatch c" + (i % 8) }),
                            label + " " + text));
    });
    return el("div", {}, el("h3", {}, title), b, legend);
  }
  function sectionsPre(list, keep) {
    const out = [];
    for (const [title, body] of list)
      if (keep(title)) out.push(el("h3", {}, title), el("pre", {}, body));
    return out;
  }
  function summary(v) {
    const s = el("section", { id: "summary" }, el("h2", {}, "Summary"),
                 el("p", { class: "summary-line" }, v.summary));
    const stepWhole = v.split.reduce((a, p) => a + p[1], 0);
    s.appendChild(bar("step-split", v.split, stepWhole,
                      "step time (sum of kernel times) by what bounds it; step >= " + v.step));
    const fpWhole = Math.max(v.memory, v.footprint.reduce((a, p) => a + p[1], 0));
    s.appendChild(bar("footprint", v.footprint, fpWhole,
                      "footprint per GPU " + v.total + " against " + v.memoryText));
    s.appendChild(el("details", { id: "report-totals" },
      el("summary", {}, "totals, footprint and slowest kernels as --report prints them"),
      ...sectionsPre(v.report, (t) => /^(totals|footprint|slowest)/.test(t))));
    return s;
  }

  /* ------------------------------------------------------------- chart */
  const W = 820, H = 440, ML = 70, MR = 210, MT = 20, MB = 50;
  function logScale(lo, hi, a, b) {
    const l0 = Math.log10(lo), l1 = Math.log10(hi);
    return (x) => a + ((Math.log10(x) - l0) / (l1 - l0)) * (b - a);
  }
  /* Points drawn at most: a browser lays out 100,000 SVG circles for
   * seconds; past this many the largest shares are drawn (the note says). */
  const POINT_LIMIT = 2000;
  function plotted(v) {
    let pts = [];
    v.rows.forEach((r, i) => {
      if ((r[10] === "memory" || r[10] === "compute") && r[R.intensity] > 0 && r[R.attainable] > 0)
        pts.push(i);
    });
    const roofline = pts.length;
    if (pts.length > POINT_LIMIT)
      pts = pts.sort((a, b) => v.rows[b][R.time] - v.rows[a][R.time]).slice(0, POINT_LIMIT);
    return [pts, roofline];
  }
  function chart(v) {
    const s = el("section", { id: "chart" }, el("h2", {}, "Roofline on " + v.target));
    const [pts, roofline] = plotted(v);
    const peaks = v.roofs.map((r) => r[1]);
    const top = Math.max(1, ...peaks, ...pts.map((i) => v.rows[i][R.attainable]));
    const xs = pts.map((i) => v.rows[i][R.intensity]).concat(peaks.map((p) => p / v.bandwidth));
    const xlo = Math.pow(10, Math.floor(Math.log10(Math.max(1e-3, Math.min(0.1, ...xs))))) ;
    const xhi = Math.pow(10, Math.ceil(Math.log10(Math.max(10, ...xs) * 2)));
    const ylo = Math.pow(10, Math.floor(Math.log10(Math.max(1, Math.min(top / 1e4,
      ...pts.map((i) => v.rows[i][R.attainable]))))));
    const yhi = Math.pow(10, Math.ceil(Math.log10(top * 1.5)));
    const X = logScale(xlo, xhi, ML, W - MR), Y = logScale(ylo, yhi, H - MB, MT);
    const g = svgEl("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H,
                             class: "roofline", role: "img" });
    g.appendChild(svgEl("rect", { x: ML, y: MT, width: W - MR - ML, height: H - MB - MT, class: "frame" }));
    for (let e = Math.log10(xlo); e <= Math.log10(xhi); e++) {
      const t = svgEl("text", { x: X(Math.pow(10, e)), y: H - MB + 16, class: "tick", "text-anchor": "middle" });
      t.textContent = "1e" + e;
      g.appendChild(t);
    }
    for (let e = Math.log10(ylo); e <= Math.log10(yhi); e++) {
      const t = svgEl("text", { x: ML - 6, y: Y(Math.pow(10, e)) + 4, class: "tick", "text-anchor": "end" });
      t.textContent = "1e" + e;
      g.appendChild(t);
    }
    const xl = svgEl("text", { x: (ML + W - MR) / 2, y: H - 10, class: "axis", "text-anchor": "middle" });
    xl.textContent = "arithmetic intensity (FLOP/B)";
    const yl = svgEl("text", { x: 14, y: (MT + H - MB) / 2, class: "axis", "text-anchor": "middle",
                               transform: "rotate(-90 14 " + (MT + H - MB) / 2 + ")" });
    yl.textContent = "attainable FLOP/s";
    g.append(xl, yl);
    const maxPeak = Math.max(...peaks, 0);
    if (maxPeak > 0) {
      const x0 = Math.max(xlo, ylo / v.bandwidth);
      g.appendChild(svgEl("line", { x1: X(x0), y1: Y(v.bandwidth * x0), x2: X(maxPeak / v.bandwidth),
                                    y2: Y(maxPeak), class: "memory-roof" }));
    }
    v.roofs.forEach(([label, peak, text]) => {
      g.appendChild(svgEl("line", { x1: X(peak / v.bandwidth), y1: Y(peak), x2: X(xhi), y2: Y(peak),
                                    class: "compute-roof" }));
      const t = svgEl("text", { x: X(xhi) + 4, y: Y(peak) + 4, class: "roof-label" });
      t.textContent = label + " " + text;
      g.appendChild(t);
    });
    const bw = svgEl("text", { x: ML + 6, y: MT + 14, class: "roof-label" });
    bw.textContent = "memory " + v.bandwidthText;
    g.appendChild(bw);
    const total = v.rows.reduce((a, r) => a + r[R.time], 0);
    for (const i of pts) {
      const r = v.rows[i];
      const share = total > 0 ? r[R.time] / total : 0;
      const c = svgEl("circle", { cx: X(r[R.intensity]), cy: Y(r[R.attainable]),
                                  r: (3 + 14 * Math.sqrt(share)).toFixed(2),
                                  class: "point " + r[10] + "-bound", "data-row": i });
      c.addEventListener("mouseenter", (ev) => showTip(v, i, ev));
      c.addEventListener("mouseleave", hideTip);
      c.addEventListener("click", () => selectRow(i, true));
      g.appendChild(c);
    }
    s.appendChild(el("div", { class: "chart-box" }, g, el("div", { id: "tip", class: "tip", hidden: "" })));
    s.appendChild(el("p", { class: "note" },
      (pts.length < roofline ? "the " + pts.length + " slowest of " : "") +
      roofline + " of " + v.rows.length + " kernels plotted (memory- and compute-bound ones); " +
      "a point's area is its share of the step; hover for its figures, click to select its row"));
    return s;
  }
  function figureList(v, i) {
    const dl = el("dl", { class: "figures" });
    v.head.forEach((h, j) => dl.append(el("dt", {}, h), el("dd", {}, v.rows[i][j])));
    return dl;
  }
  function showTip(v, i, ev) {
    const tip = document.getElementById("tip");
    tip.replaceChildren(el("strong", {}, v.rows[i][0]), figureList(v, i));
    tip.dataset.row = String(i);
    const box = tip.parentNode.getBoundingClientRect();
    tip.style.left = Math.min(ev.clientX - box.left + 12, W - 200) + "px";
    tip.style.top = ev.clientY - box.top + 12 + "px";
    tip.hidden = false;
  }
  function hideTip() { document.getElementById("tip").hidden = true; }

  /* ------------------------------------------------------------- table */
  function distinct(v, col) { return [...new Set(v.rows.map((r) => r[col]))].sort(); }
  function filterSelect(id, label, values, key) {
    const sel = el("select", { id: id }, el("option", { value: "" }, "any " + label));
    for (const x of values) sel.appendChild(el("option", { value: x }, x));
    sel.value = state[key];
    sel.addEventListener("change", () => { state[key] = sel.value; drawRows(); });
    return el("label", {}, label + " ", sel);
  }
  function table(v) {
    const s = el("section", { id: "table" }, el("h2", {}, "Kernels"));
    const text = el("input", { id: "filter-text", type: "search", placeholder: "name, op or line" });
    text.value = state.text;
    text.addEventListener("input", () => { state.text = text.value; drawRows(); });
    s.appendChild(el("div", { class: "filters" }, filterSelect("filter-op", "op", distinct(v, 1), "op"),
      filterSelect("filter-bound", "bound", distinct(v, 10), "bound"),
      filterSelect("filter-prec", "precision", distinct(v, 2), "prec"),
      el("label", {}, "text ", text), el("span", { id: "row-count" })));
    const tr = el("tr", {});
    v.head.forEach((h, j) => {
      const th = el("th", { "data-col": String(j), scope: "col" },
                    el("button", { type: "button" }, h));
      th.addEventListener("click", () => sortBy(j));
      tr.appendChild(th);
    });
    s.appendChild(el("div", { class: "table-box" },
      el("table", { id: "kernels" }, el("thead", {}, tr), el("tbody", {}))));
    s.appendChild(el("div", { id: "more" }));
    s.appendChild(el("div", { id: "detail", class: "detail" }));
    return s;
  }
  function matches(r) {
    if (state.op && r[1] !== state.op) return false;
    if (state.bound && r[10] !== state.bound) return false;
    if (state.prec && r[2] !== state.prec) return false;
    if (!state.text) return true;
    const t = state.text.toLowerCase();
    return [r[0], r[1], r[13]].some((c) => c.toLowerCase().includes(t));
  }
  function order(v) {
    const idx = v.rows.map((_, i) => i);
    const c = state.sortCol;
    if (c < 0) return idx;
    const key = SORT_BY[c];
    const cmp = key !== undefined
      ? (a, b) => (v.rows[a][key] - v.rows[b][key]) * state.sortDir
      : c === 13
        ? (a, b) => ((v.rows[a][R.file] - v.rows[b][R.file]) || (v.rows[a][R.line] - v.rows[b][R.line])) * state.sortDir
        : (a, b) => v.rows[a][c].localeCompare(v.rows[b][c]) * state.sortDir;
    return idx.sort(cmp); /* stable: ties keep the report's order */
  }
  function sortBy(col) {
    /* a figure sorts largest first, as the report's slowest list does */
    state.sortDir = state.sortCol === col ? -state.sortDir : (SORT_BY[col] !== undefined ? -1 : 1);
    state.sortCol = col;
    for (const th of document.querySelectorAll("#kernels th"))
      th.setAttribute("aria-sort", Number(th.dataset.col) !== col ? "none"
                      : state.sortDir < 0 ? "descending" : "ascending");
    drawRows();
  }
  function drawRows() {
    const v = data.views[state.view];
    const body = document.querySelector("#kernels tbody");
    const shown = order(v).filter((i) => matches(v.rows[i]));
    const rows = document.createDocumentFragment(); /* no spread: 100,000 rows */
    for (const i of shown.slice(0, state.limit)) {
      const r = v.rows[i];
      const tr = el("tr", { "data-row": String(i), class: "bound-" + r[10] });
      if (i === state.selected) tr.classList.add("selected");
      for (let j = 0; j < 13; j++) tr.appendChild(el("td", {}, r[j]));
      const a = el("a", { href: "#detail" }, r[13]);
      tr.appendChild(el("td", {}, a));
      tr.addEventListener("click", () => selectRow(i, false));
      rows.appendChild(tr);
    }
    body.replaceChildren(rows);
    document.getElementById("row-count").textContent = shown.length + " of " + v.rows.length + " rows";
    const more = document.getElementById("more");
    more.replaceChildren();
    if (shown.length > state.limit) {
      const b = el("button", { type: "button" }, "show " + Math.min(ROW_LIMIT, shown.length - state.limit) +
                   " more (" + (shown.length - state.limit) + " not shown)");
      b.addEventListener("click", () => { state.limit += ROW_LIMIT; drawRows(); });
      more.appendChild(b);
    }
  }
  function selectRow(i, fromChart) {
    const v = data.views[state.view];
    state.selected = i;
    let tr = document.querySelector('#kernels tr[data-row="' + i + '"]');
    if (!tr && fromChart) {
      state.op = state.bound = state.prec = state.text = "";
      state.limit = Math.max(state.limit, order(v).indexOf(i) + 1);
      showView(state.view);
      state.selected = i;
      tr = document.querySelector('#kernels tr[data-row="' + i + '"]');
    }
    for (const x of document.querySelectorAll("#kernels tr.selected")) x.classList.remove("selected");
    for (const x of document.querySelectorAll("circle.selected")) x.classList.remove("selected");
    if (tr) { tr.classList.add("selected"); tr.scrollIntoView({ block: "nearest" }); }
    const pt = document.querySelector('circle[data-row="' + i + '"]');
    if (pt) pt.classList.add("selected");
    const r = v.rows[i];
    const detail = document.getElementById("detail");
    const src = sourceLine.get(r[R.file] + ":" + r[R.line]);
    detail.replaceChildren(el("h3", {}, r[0] + " (" + r[1] + ")"), figureList(v, i),
      el("p", { class: "source" }, fileName(r[R.file]) + ":" + r[13] + ": ",
         el("code", {}, src === undefined ? "" : src)));
    for (const d of diagsAt(r[R.file], r[R.line])) detail.appendChild(diagItem(d, false));
  }

  /* ------------------------------------------------------- diagnostics */
  function diagItem(d, link) {
    const loc = fileName(d.file) + (d.line > 0 ? ":" + d.line + ":" + d.col : "");
    const where = link ? el("a", { href: "#detail", class: "loc" }, loc) : el("span", { class: "loc" }, loc);
    if (link) where.addEventListener("click", () => gotoLine(d.file, d.line));
    const item = el("div", { class: "diag " + d.severity },
      el("p", {}, where, " ", el("span", { class: "sev" }, d.severity), " ", d.message,
         el("span", { class: "check" }, " [" + d.check + "]")));
    if (d.notes.length) item.appendChild(el("ul", { class: "notes" }, ...d.notes.map((n) => el("li", {}, n))));
    item.appendChild(el("pre", {}, d.text));
    return item;
  }
  function gotoLine(file, line) {
    let vi = data.views.findIndex((v, k) => k === state.view && v.file === file);
    if (vi < 0) vi = data.views.findIndex((v) => v.file === file);
    if (vi < 0) return;
    if (vi !== state.view) showView(vi);
    const i = data.views[vi].rows.findIndex((r) => r[R.file] === file && r[R.line] === line);
    if (i >= 0) selectRow(i, true);
  }
  function diagnostics() {
    const s = el("section", { id: "diagnostics" }, el("h2", {}, "Diagnostics (" + data.diags.length + ")"));
    const groups = new Map();
    for (const d of data.diags) {
      if (!groups.has(d.check)) groups.set(d.check, []);
      groups.get(d.check).push(d);
    }
    for (const [check, list] of groups) {
      const g = el("details", { open: "", class: "check-group", "data-check": check },
                   el("summary", {}, check + " (" + list.length + ")"));
      for (const d of list) g.appendChild(diagItem(d, true));
      s.appendChild(g);
    }
    if (!data.diags.length) s.appendChild(el("p", {}, "none"));
    return s;
  }

  /* -------------------------------------------------------------- plan */
  function plan(v) {
    const s = el("section", { id: "plan" }, el("h2", {}, "Plan and parallelism"));
    for (const e of sectionsPre(v.plan, () => true)) s.appendChild(e);
    for (const e of sectionsPre(v.report, (t) => !/^(totals|footprint|slowest)/.test(t)))
      s.appendChild(e);
    return s;
  }

  function showView(i) {
    if (i !== state.view) state.limit = ROW_LIMIT;
    state.view = i;
    state.selected = -1;
    const v = data.views[i];
    const parts = [header()];
    if (v) parts.push(summary(v), chart(v), table(v));
    else parts.push(el("p", {}, "no model was analysed"));
    parts.push(diagnostics());
    if (v) parts.push(plan(v));
    app.replaceChildren(...parts);
    const sel = document.getElementById("view");
    if (sel) sel.value = String(i);
    if (v) drawRows();
  }
  /* ------------------------------------ shared by the sweep and diff pages */
  /* A table whose every column sorts on a click of its head: by keyOf(row,
   * column), a number (largest first, as the lint page sorts figures) or a
   * string; ties keep the given order.  rowAttrs(row, i) names each row. */
  function sortableTable(id, heads, rows, cellsOf, keyOf, rowAttrs) {
    const body = el("tbody", {});
    const st = { col: -1, dir: 1 };
    function draw() {
      const idx = rows.map((_, i) => i);
      if (st.col >= 0) {
        idx.sort((a, b) => {
          const x = keyOf(rows[a], st.col), y = keyOf(rows[b], st.col);
          const c = typeof x === "number" && typeof y === "number" ? x - y
            : String(x).localeCompare(String(y));
          return c * st.dir;
        });
      }
      const frag = document.createDocumentFragment();
      for (const i of idx) {
        const tr = el("tr", rowAttrs(rows[i], i));
        for (const c of cellsOf(rows[i])) tr.appendChild(el("td", {}, c));
        tr.addEventListener("click", () => markRow(tr));
        frag.appendChild(tr);
      }
      body.replaceChildren(frag);
    }
    const tr = el("tr", {});
    heads.forEach((h, j) => {
      const th = el("th", { "data-col": String(j), scope: "col" },
                    el("button", { type: "button" }, h === "" ? " " : h));
      th.addEventListener("click", () => {
        const numeric = rows.length > 0 && typeof keyOf(rows[0], j) === "number";
        st.dir = st.col === j ? -st.dir : numeric ? -1 : 1;
        st.col = j;
        for (const x of tr.children)
          x.setAttribute("aria-sort", Number(x.dataset.col) !== j ? "none"
                         : st.dir < 0 ? "descending" : "ascending");
        draw();
      });
      tr.appendChild(th);
    });
    draw();
    return el("div", { class: "table-box" },
              el("table", { id: id, class: "sortable" }, el("thead", {}, tr), body));
  }
  function markRow(tr) {
    for (const x of document.querySelectorAll("tr.selected, circle.selected"))
      x.classList.remove("selected");
    if (!tr) return;
    tr.classList.add("selected");
    tr.scrollIntoView({ block: "nearest" });
  }
  function pageHeader(title, files, sections) {
    document.title = "rooflint " + title + ": " + files;
    const nav = el("nav", {});
    for (const [id, label] of sections) nav.appendChild(el("a", { href: "#" + id }, label));
    return el("header", {}, el("h1", {}, "rooflint " + title), el("p", { class: "files" }, files), nav);
  }

  /* --------------------------------------------- the sweep (R-HTML-008) */
  function decades(lo, hi) {
    let a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
    if (b <= a) b = a + 1;
    return [Math.pow(10, a), Math.pow(10, b)];
  }
  /* One chart of figure `key` against the first swept value, one line per
   * value of the other swept lets; each point links to its row. */
  function sweepChart(t, ti, key, label, limit) {
    const SW = 520, SH = 300, L = 64, R = 16, T = 14, B = 44;
    const pts = [];
    t.rows.forEach((r, i) => {
      if (r.values[0] !== null && r[key] !== null && r[key] > 0) pts.push(i);
    });
    if (!pts.length) return el("p", { class: "note" }, "no " + label + " to chart");
    const xs = pts.map((i) => t.rows[i].values[0]);
    const ys = pts.map((i) => t.rows[i][key]).concat(limit > 0 ? [limit] : []);
    const xmin = Math.min(...xs), xmax = Math.max(...xs);
    const xlog = xmin > 0 && xmax / xmin >= 10;
    const X = xlog ? logScale(...decades(xmin, xmax), L, SW - R)
      : (x) => L + (xmax > xmin ? (x - xmin) / (xmax - xmin) : 0.5) * (SW - R - L);
    const [ylo, yhi] = decades(Math.min(...ys), Math.max(...ys));
    const Y = logScale(ylo, yhi, SH - B, T);
    const g = svgEl("svg", { viewBox: "0 0 " + SW + " " + SH, width: SW, height: SH,
                             class: "sweep-chart", "data-figure": key, role: "img" });
    g.appendChild(svgEl("rect", { x: L, y: T, width: SW - L - R, height: SH - T - B, class: "frame" }));
    for (let e = Math.log10(ylo); e <= Math.log10(yhi); e++) {
      const tx = svgEl("text", { x: L - 6, y: Y(Math.pow(10, e)) + 4, class: "tick", "text-anchor": "end" });
      tx.textContent = "1e" + e;
      g.appendChild(tx);
    }
    const seen = new Set();
    for (const i of pts) { /* a tick at each swept value, its text as given */
      const v = t.rows[i].values[0];
      if (seen.has(v) || seen.size >= 12) continue;
      seen.add(v);
      const tx = svgEl("text", { x: X(v), y: SH - B + 16, class: "tick", "text-anchor": "middle" });
      tx.textContent = t.rows[i].cells[0];
      g.appendChild(tx);
    }
    const xl = svgEl("text", { x: (L + SW - R) / 2, y: SH - 8, class: "axis", "text-anchor": "middle" });
    xl.textContent = data.axes[0];
    const yl = svgEl("text", { x: 12, y: (T + SH - B) / 2, class: "axis", "text-anchor": "middle",
                               transform: "rotate(-90 12 " + (T + SH - B) / 2 + ")" });
    yl.textContent = label;
    g.append(xl, yl);
    if (limit > 0) {
      g.appendChild(svgEl("line", { x1: L, x2: SW - R, y1: Y(limit), y2: Y(limit), class: "limit" }));
      const lt = svgEl("text", { x: SW - R - 4, y: Y(limit) - 4, class: "roof-label", "text-anchor": "end" });
      lt.textContent = "the target's memory";
      g.appendChild(lt);
    }
    const series = new Map();
    for (const i of pts) {
      const k = t.rows[i].cells.slice(1, data.axes.length).join(", ");
      if (!series.has(k)) series.set(k, []);
      series.get(k).push(i);
    }
    let si = 0;
    for (const list of series.values()) {
      const line = list.slice().sort((a, b) => t.rows[a].values[0] - t.rows[b].values[0])
        .map((i) => X(t.rows[i].values[0]).toFixed(1) + "," + Y(t.rows[i][key]).toFixed(1));
      g.appendChild(svgEl("polyline", { points: line.join(" "), class: "series s" + (si % 8) }));
      for (const i of list) {
        const r = t.rows[i];
        const a = svgEl("a", { href: "#sweep-" + ti + "-row-" + i });
        const c = svgEl("circle", { cx: X(r.values[0]), cy: Y(r[key]), r: 4,
                                    class: "sweep-point s" + (si % 8), "data-row": String(i) });
        const tip = svgEl("title", {});
        tip.textContent = t.heads.map((h, j) => h + " " + r.cells[j]).join("; ");
        c.appendChild(tip);
        a.appendChild(c);
        a.addEventListener("click", () => {
          markRow(document.getElementById("sweep-" + ti + "-row-" + i));
          c.classList.add("selected");
        });
        g.appendChild(a);
      }
      si++;
    }
    return g;
  }
  function sweepPage() {
    const files = [...new Set(data.tables.map((t) => t.file))].join(", ");
    const parts = [pageHeader("sweep", files, data.tables.map((t, ti) =>
      ["sweep-" + ti, (t.model === null ? "" : t.model + " ") + "(" + t.file + ")"]))];
    data.tables.forEach((t, ti) => {
      const na = data.axes.length;
      const s = el("section", { id: "sweep-" + ti, class: "sweep" },
        el("h2", {}, "--sweep " + data.axes.join(", ") + ": " +
           (t.model === null ? "" : "model " + t.model + " in ") + t.file + " on " + t.target));
      const mem = t.rows.reduce((m, r) => Math.max(m, r.memory || 0), 0);
      s.appendChild(el("div", { class: "sweep-charts" },
        sweepChart(t, ti, "step", "step time (s)", 0),
        sweepChart(t, ti, "footprint", "footprint per GPU (B)", mem)));
      const stepCol = t.heads.indexOf("time/step"), fpCol = t.heads.indexOf("footprint");
      s.appendChild(sortableTable("sweep-table-" + ti, t.heads, t.rows, (r) => r.cells,
        (r, j) => j < na && r.values[j] !== null ? r.values[j]
          : j === stepCol && r.step !== null ? r.step
          : j === fpCol && r.footprint !== null ? r.footprint : r.cells[j],
        (r, i) => ({ id: "sweep-" + ti + "-row-" + i, "data-row": String(i) })));
      parts.push(s);
    });
    if (!data.tables.length) parts.push(el("p", {}, "no file was swept"));
    app.replaceChildren(...parts);
  }

  /* ---------------------------------------------- the diff (R-HTML-009) */
  /* A figure column sorts by how much it grew (new minus old, a side that
   * lacks it counted as 0): the change that matters most comes first. */
  const DIFF_FIG = { 5: 0, 6: 1, 8: 2 };
  function growth(r, k) {
    const o = r.old && r.old[k] !== null ? r.old[k] : 0;
    const n = r.new && r.new[k] !== null ? r.new[k] : 0;
    return n - o;
  }
  function diffTable(mi, kind, rows) {
    return sortableTable("diff-" + mi + "-" + kind, data.heads, rows, (r) => r.cells,
      (r, j) => DIFF_FIG[j] !== undefined ? growth(r, DIFF_FIG[j]) : r.cells[j],
      (r) => ({ class: "mark-" + (r.cells[0] === "~" ? "changed" : r.cells[0] === "+" ? "added" : "removed"),
                "data-node": r.cells[1], "data-at": r.cells[10] }));
  }
  function diffModel(m, mi) {
    const s = el("section", { id: "model-" + mi, class: "diff-model" }, el("h2", {}, m.title));
    if (m.plan) s.appendChild(el("p", {}, m.plan));
    if (m.totals.length) {
      const tb = el("tbody", {});
      for (const t of m.totals) tb.appendChild(el("tr", {}, ...t.slice(0, 4).map((c) => el("td", {}, c))));
      s.appendChild(el("table", { class: "totals", id: "totals-" + mi },
        el("thead", {}, el("tr", {}, ...["totals", "old", "new", "change"].map((h) => el("th", {}, h)))), tb));
    }
    const kernels = m.rows.filter((r) => r.kernel), nodes = m.rows.filter((r) => r.node);
    s.appendChild(el("h3", {}, "kernels that changed (" + kernels.length + ")"));
    s.appendChild(kernels.length ? diffTable(mi, "kernels", kernels) : el("p", {}, "none"));
    s.appendChild(el("h3", {}, "nodes that changed (" + nodes.length + ")"));
    s.appendChild(nodes.length ? diffTable(mi, "nodes", nodes) : el("p", {}, "none"));
    return s;
  }
  /* A diagnostic's node: its row in the first model's node table that has it. */
  function gotoNode(name) {
    const tr = [...document.querySelectorAll("table[id$='-nodes'] tr, table[id$='-kernels'] tr")]
      .find((t) => t.dataset.node === name);
    markRow(tr || null);
  }
  function diffDiags(key, title, mark) {
    const list = data[key];
    const s = el("section", { id: key }, el("h2", {}, title + " (" + list.length + ")"));
    for (const d of list) {
      const p = el("p", { class: "diag " + d.severity }, mark + " ");
      if (d.node !== null) {
        const a = el("a", { href: "#", class: "node" }, d.node);
        a.addEventListener("click", (ev) => { ev.preventDefault(); gotoNode(d.node); });
        p.append(a, " ");
      }
      p.appendChild(el("span", { class: "text" }, d.text));
      s.appendChild(p);
    }
    if (!list.length) s.appendChild(el("p", {}, "none"));
    return s;
  }
  function diffPage() {
    const files = data.old.file + " -> " + data.new.file;
    const parts = [pageHeader("diff", files, [["models", "Models"], ["appeared", "Appeared"],
                                              ["disappeared", "Disappeared"]])];
    parts.push(el("p", { class: "summary-line" }, "on " + data.old.target +
      (data.new.target !== data.old.target ? " -> " + data.new.target : "")));
    if (data.regressions.length)
      parts.push(el("p", { class: "diag error" }, "step-time regression past --fail-on-regression: " +
                    data.regressions.join(", ")));
    const models = el("div", { id: "models" });
    data.models.forEach((m, mi) => models.appendChild(diffModel(m, mi)));
    parts.push(models, diffDiags("appeared", "diagnostics that appeared", "+"),
               diffDiags("disappeared", "diagnostics that went away", "-"));
    app.replaceChildren(...parts);
  }

  if (data.kind === "sweep") sweepPage();
  else if (data.kind === "diff") diffPage();
  else showView(0);
})();
