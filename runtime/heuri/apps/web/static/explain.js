// The explanation panel of the Position view: each ranked move's equity as its named terms
// (POST /api/explain, heuri.eval.explain), drawn as one bar per move with a visible legend,
// and "why not X?": any move of the list beside the engine's choice, term by term.
// app.js calls Explain.ranked(request) once a ranking is shown and Explain.select(i) when a
// move of the list is clicked; everything else lives here.
"use strict";

window.Explain = (function () {
  // the terms in the order they are drawn; the colours are the legend's
  const TERMS = [
    { key: "score", color: "#0b8a83", head: () => t("points"), text: () => t("Points the move scores.") },
    { key: "bingo", color: "#8d5fd3", head: () => t("bingo next turn"),
      text: () => t("Expected value of a bingo next turn with the tiles kept: its chance times what it adds over an ordinary move.") },
    { key: "lanes", color: "#e8590c", head: () => t("lanes for the opponent"),
      text: () => t("Bingo lanes the move opens (negative) or closes (positive) for the opponent.") },
    { key: "leave", color: "#b89b52", head: () => t("leave quality"),
      text: () => t("Quality of the tiles kept: minus the expected cost of an awkward next rack (too many vowels or consonants, duplicates, a Q without a U).") },
    { key: "power", color: "#2f7fc1", head: () => t("next rack's scoring power"),
      text: () => t("Points the kept and drawn tiles are expected to add to an ordinary next move.") },
    { key: "blank", color: "#555555", head: () => t("blank kept for later"),
      text: () => t("A kept blank's bingo chance on the turn after next.") },
    { key: "defence", color: "#b3261e", head: () => t("premium squares opened"),
      text: () => t("Penalty for opening triple- and double-word squares to the opponent.") },
  ];
  const BARS = 10;  // moves drawn as bars
  const E = { req: null, data: null, sel: 0, seq: 0 };

  function node(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmt(x) { return Math.abs(x) < 0.005 ? "0.00" : (x > 0 ? "+" : "−") + Math.abs(x).toFixed(2); }

  function panel() {
    let p = document.getElementById("explain");
    if (!p) {
      p = node("section", { id: "explain", class: "explain", "aria-label": t("Why this move") });
      // above the ranked list (which can be 100 rows long), below the move previewed
      document.getElementById("moves").before(p);
    }
    return p;
  }

  // the terms a ranking uses: score and bingo always, the others where a move has them
  function used(rows) {
    return TERMS.filter((d) => d.key === "score" || d.key === "bingo" ||
      rows.some((r) => r[d.key] !== 0 || (d.key === "lanes" && r.lanes_known === false)));
  }

  function legend(terms) {
    const box = node("div", { class: "ex-legend" });
    box.append(node("p", { class: "ex-title" }, t("How the engine values a move: the sum of these terms, in points, is its equity (v), which ranks the moves.")));
    const ul = node("ul");
    for (const d of terms) {
      const li = node("li");
      const sw = node("span", { class: "ex-swatch" });
      sw.style.background = d.color;
      li.append(sw, node("b", {}, d.head()), document.createTextNode(": " + d.text()));
      ul.append(li);
    }
    box.append(ul);
    box.append(node("p", { class: "hint" }, t("A bar's parts right of the line add to the move's value, those left of it take away. '?': the lanes were not computed for that move (the engine re-values only the moves that could still beat its choice).")));
    return box;
  }

  function bar(row, terms, lo, hi) {
    const wrap = node("div", { class: "ex-bar" });
    const span = hi - lo || 1;
    const zero = node("div", { class: "ex-zero" });
    zero.style.left = `${(100 * -lo) / span}%`;
    let pos = 0, neg = 0;
    for (const d of terms) {
      const x = row[d.key];
      if (!x) continue;
      const seg = node("div", { class: "ex-seg", title: `${d.head()}: ${fmt(x)}` });
      seg.style.background = d.color;
      seg.style.width = `${(100 * Math.abs(x)) / span}%`;
      if (x > 0) { seg.style.left = `${(100 * (pos - lo)) / span}%`; pos += x; }
      else { neg += x; seg.style.left = `${(100 * (neg - lo)) / span}%`; }
      wrap.append(seg);
    }
    wrap.append(zero);
    return wrap;
  }

  function bars(rows, terms) {
    const shown = rows.slice(0, BARS);
    let lo = 0, hi = 0;
    for (const r of shown) {
      let p = 0, n = 0;
      for (const d of terms) { const x = r[d.key]; if (x > 0) p += x; else n += x; }
      hi = Math.max(hi, p); lo = Math.min(lo, n);
    }
    const box = node("div", { class: "ex-bars" });
    shown.forEach((r, i) => {
      const line = node("div", { class: "ex-line" + (i === E.sel ? " on" : ""), "data-i": String(i) });
      line.append(node("span", { class: "ex-mv" }, `${r.rank}. ${moveLabel(r)}${r.lanes_known === false ? " ?" : ""}`),
                  bar(r, terms, lo, hi),
                  node("span", { class: "ex-v" }, r.equity.toFixed(2)));
      line.addEventListener("click", () => select(i));
      box.append(line);
    });
    return box;
  }

  // a move as the page writes it: the whole word (8G CA(RR)OÑE) in the page's coordinates
  function moveLabel(r) {
    const text = r.word || r.move;
    return window.heuriCoords ? window.heuriCoords.show(text) : text;
  }

  // "why not X?": the move beside the engine's choice, per term and the difference
  function sideBySide(w, terms) {
    const c = w.choice, m = w.move;
    const box = node("div", { class: "ex-why" });
    if (c.rank === m.rank) {
      box.append(node("p", { class: "info" }, t("{move} is the engine's choice; pick another move of the list to compare it.", { move: moveLabel(m) })));
      return box;  // no table of the choice beside itself
    } else {
      box.append(node("p", { class: "info" }, t("Why not {move}? The engine prefers {choice}: {diff} points more.",
        { move: moveLabel(m), choice: moveLabel(c), diff: w.difference.equity.toFixed(2) })));
    }
    const tab = node("table", { class: "moves ex-table" });
    const hr = node("tr");
    hr.append(node("th", {}, t("term")), node("th", {}, t("{move} (choice)", { move: moveLabel(c) })),
              node("th", {}, `${moveLabel(m)} (#${m.rank})`), node("th", {}, t("difference")));
    const th = node("thead");
    th.append(hr);
    tab.append(th);
    const tb = node("tbody");
    const tr0 = node("tr");
    tr0.append(node("td", {}, t("tiles kept")), node("td", { class: "mv" }, c.leave_tiles || "—"),
               node("td", { class: "mv" }, m.leave_tiles || "—"), node("td"));
    tb.append(tr0);
    for (const d of terms) {
      const tr = node("tr");
      const name = node("td");
      const sw = node("span", { class: "ex-swatch" });
      sw.style.background = d.color;
      name.append(sw, document.createTextNode(d.head()));
      tr.append(name, node("td", {}, fmt(c[d.key])), node("td", {}, fmt(m[d.key])),
                node("td", { class: w.difference[d.key] > 0 ? "ex-plus" : w.difference[d.key] < 0 ? "ex-minus" : "" },
                     fmt(w.difference[d.key])));
      tb.append(tr);
      if (d.key === "bingo") {
        const trp = node("tr");
        trp.append(node("td", {}, t("chance of a bingo next turn")),
                   node("td", {}, `${(100 * c.bingo_probability).toFixed(0)}%`),
                   node("td", {}, `${(100 * m.bingo_probability).toFixed(0)}%`), node("td"));
        tb.append(trp);
      }
    }
    const trv = node("tr", { class: "ex-total" });
    trv.append(node("td", {}, t("= equity")), node("td", {}, c.equity.toFixed(2)), node("td", {}, m.equity.toFixed(2)),
               node("td", {}, fmt(w.difference.equity)));
    tb.append(trv);
    tab.append(tb);
    box.append(tab);
    return box;
  }

  function draw(why) {
    const p = panel();
    p.textContent = "";
    const d = E.data;
    if (!d) return;
    const terms = used(d.terms.concat(why ? [why.choice, why.move] : []));
    p.append(node("h3", {}, t("Why this move: each move's value in terms")));
    p.append(bars(d.terms, terms));
    const pick = node("div", { class: "row ex-pick" });
    const input = node("input", { id: "explain-move", size: "16", autocomplete: "off", spellcheck: "false",
                                  placeholder: t("e.g. 8D VERBE") });
    const go = node("button", { id: "explain-go" }, t("Why not this move?"));
    const label = node("label", { for: "explain-move" }, t("Compare any move with the engine's choice:"));
    pick.append(label, input, go);
    go.addEventListener("click", () => whyNot(input.value));
    input.addEventListener("keydown", (ev) => { if (ev.key === "Enter") whyNot(input.value); });
    p.append(pick, node("div", { id: "explain-error", class: "error", role: "alert" }));
    if (why) p.append(sideBySide(why, terms));
    p.append(legend(terms));
  }

  async function post(extra) {
    const r = await fetch("/api/explain", { method: "POST", headers: { "content-type": "application/json" },
                                            body: JSON.stringify(Object.assign({}, E.req, extra)) });
    let data;
    try { data = await r.json(); } catch (e) { data = { error: t("the server answered {status}", { status: r.status }) }; }
    if (!r.ok) throw new Error(window.heuriErrorText(data) || t("the server answered {status}", { status: r.status }));
    return data;
  }

  // a ranking is shown: fetch the terms of its moves and draw the panel
  async function ranked(req) {
    E.req = { lang: req.lang, lexicon: req.lexicon, cgp: req.cgp, engine: req.engine, top: req.top || 100 };
    E.sel = 0;
    const seq = ++E.seq;
    try {
      const d = await post({});
      if (seq !== E.seq) return;  // a newer ranking was asked for meanwhile
      E.data = d;
      draw(null);
    } catch (e) {
      const p = panel();
      p.textContent = "";
      p.append(node("div", { class: "error" }, String(e.message || e)));
    }
  }

  async function whyNot(move, label) {
    if (!E.data) return;
    const text = (move || "").trim();
    const err = document.getElementById("explain-error");
    if (!text) { err.textContent = t("Type a move, e.g. 8D VERBE, or click one in the list."); return; }
    const seq = ++E.seq;
    try {
      const d = await post({ move: text, top: 1 });
      if (seq !== E.seq) return;
      draw(d.why_not);
      document.getElementById("explain-move").value = label || text;
    } catch (e) {
      const err2 = document.getElementById("explain-error");
      if (err2) err2.textContent = String(e.message || e);
      document.getElementById("explain-move").value = text;  // what was typed is kept
    }
  }

  // a move of the ranked list was picked (index into the ranking)
  function select(i) {
    if (!E.data || !E.data.terms[i]) return;
    E.sel = i;
    whyNot(E.data.terms[i].move, moveLabel(E.data.terms[i]));
  }

  function reset() { E.data = null; E.seq++; const p = document.getElementById("explain"); if (p) p.textContent = ""; }

  return { ranked, select, whyNot, reset };
})();
