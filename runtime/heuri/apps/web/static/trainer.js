// heuri serve: the Duplicate view, a master game trained alone against the clock.
// The server (/api/duplicate/...) holds the game and arbitrates; this script shows the
// turn's draw, the countdown and the board, and builds the move from clicks on the draw
// and the board (or takes it typed), then shows the top and the running percentage.
"use strict";
(function () {
  const T = { d: null, placed: [], pick: null, deadline: 0, timer: null, sent: false, busy: false };

  const q = (sel) => document.querySelector(sel);

  function node(tag, attrs = {}, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  async function call(path, body) {
    const opt = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" },
                                            body: JSON.stringify(body) };
    const r = await fetch(path, opt);
    let data;
    try { data = await r.json(); } catch (e) { data = { error: t("The server answered {status}.", { status: r.status }) }; }
    if (!r.ok) {
      const err = new Error(window.heuriErrorText(data) || t("The server answered {status}.", { status: r.status }));
      err.status = r.status; throw err;
    }
    return data;
  }

  function say(id, text) { q(id).textContent = text || ""; }

  // -- the view's parts -----------------------------------------------------------------------
  // a percentage with one decimal as the page's language writes it (76,3 in French and Spanish)
  function pct1(x) {
    const lang = (window.I18N && window.I18N.lang) || "en";
    return x.toLocaleString(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  }

  function build() {
    const root = q("#trainer");
    const setup = node("div", { class: "row", id: "tr-setup" });
    const lang = node("span", { id: "tr-lang", class: "hint" });
    const seed = node("label", {}, t("Seed") + " ");
    seed.append(node("input", { id: "tr-seed", type: "number", min: "0", placeholder: t("random") }));
    const master = node("label", { title: t("A master game written by heuri duplicate new (its .gcg file)") },
                        t("or a master game") + " ");
    master.append(node("input", { id: "tr-master", type: "file", accept: ".gcg,text/plain" }));
    const secs = node("label", {}, t("Time a turn") + " ");
    const sel = node("select", { id: "tr-seconds" });
    for (const m of [1, 2, 3]) {
      const o = node("option", { value: String(60 * m) }, t("{n} min", { n: m }));
      if (m === 3) o.selected = true;
      sel.append(o);
    }
    secs.append(sel);
    const nota = node("label", { title: t("How moves are written: GCG (row number first = across) or the French federation's (row letter first = across)") },
                      t("Coordinates") + " ");
    const ns = node("select", { id: "tr-notation" });
    ns.append(node("option", { value: "gcg" }, t("8D WORD across (GCG)")), node("option", { value: "fisf" }, t("H4 WORD across (FISF)")));
    // the page's coordinates setting (FISF by default on a French page) is the trainer's default
    if (window.heuriCoords && window.heuriCoords.get() === "fisf") ns.value = "fisf";
    nota.append(ns);
    const name = node("label", {}, t("Name") + " ");
    name.append(node("input", { id: "tr-player", size: "10", maxlength: "40", placeholder: t("me") }));
    setup.append(lang, seed, master, secs, nota, name, node("button", { id: "tr-start", class: "primary" }, t("Start a game")));
    root.append(setup, node("div", { id: "tr-error", class: "error", role: "alert" }), node("div", { id: "tr-head", class: "info" }));

    // three parts in a grid: the board; the turn (clock, draw, move); the results. On a
    // narrow screen the turn comes first, the board under it, so both are in view together.
    const cols = node("div", { class: "trcols" });
    const bcol = node("div", { class: "boardcol" });
    bcol.append(node("div", { id: "tr-board", class: "boardbox", "data-own-coords": "", "aria-label": t("board: click a tile of the draw, then a square") }),
                node("p", { class: "hint", id: "tr-hint" }));
    const side = node("div", { class: "trturn" });
    const rest = node("div", { class: "trrest" });
    const clock = node("div", { id: "tr-clock", class: "trclock", "aria-live": "off" });
    const draw = node("div", { id: "tr-draw", class: "palette trdraw", "aria-label": t("the draw") });
    const blank = node("div", { id: "tr-blank", class: "palette", hidden: "" });
    const mrow = node("div", { class: "row" });
    mrow.append(node("input", { id: "tr-move", size: "22", autocomplete: "off", spellcheck: "false", placeholder: "8D WORD" }),
                node("button", { id: "tr-submit", class: "primary" }, t("Hand in")),
                node("button", { id: "tr-clear" }, t("Take the tiles back")));
    const nrow = node("div", { class: "row" });
    nrow.append(node("button", { id: "tr-next", class: "primary", hidden: "" }, t("Next turn")),
                node("a", { id: "tr-sheet", hidden: "" }, t("Download the sheet (CSV)")));
    const table = node("table", { id: "tr-history", class: "moves" });
    const head = node("tr");
    for (const h of [t("turn"), t("draw"), t("your move"), t("points"), t("top"), t("top points")]) head.append(node("th", {}, h));
    const thead = node("thead");
    thead.append(head);
    table.append(thead, node("tbody"));
    side.append(clock, node("div", { id: "tr-drawtext", class: "info" }), draw, node("div", { id: "tr-drawnote", class: "hint" }), blank,
                mrow, node("div", { id: "tr-move-error", class: "error", role: "alert" }));
    rest.append(node("div", { id: "tr-result", class: "trresult" }), nrow, node("div", { id: "tr-summary", class: "info" }),
                node("h3", {}, t("Turns")), table);
    cols.append(bcol, side, rest);
    root.append(cols);
  }

  function langText() {
    if (q("#tr-master") && q("#tr-master").files.length) return t("The master game's record says its language and lexicon.");
    const ls = q("#lang"), lx = q("#lexicon");
    const name = ls && ls.selectedOptions[0] ? ls.selectedOptions[0].textContent : "";
    const lexicon = lx && !q("#lexicon-box").hidden && lx.selectedOptions[0] ? lx.selectedOptions[0].textContent : "";
    return lexicon ? t("Language {lang}, lexicon {lexicon} (chosen at the top).", { lang: name, lexicon })
                   : t("Language {lang} (chosen at the top).", { lang: name });
  }

  // -- a game ---------------------------------------------------------------------------------
  async function start() {
    say("#tr-error"); say("#tr-move-error");
    const body = { seconds: parseInt(q("#tr-seconds").value, 10), notation: q("#tr-notation").value };
    const f = q("#tr-master").files[0];
    if (!f) {  // a master game's record says its language and lexicon itself
      body.lang = q("#lang").value;
      if (q("#lexicon").value) body.lexicon = q("#lexicon").value;
    }
    const player = q("#tr-player").value.trim();
    if (player) body.player = player;
    if (f) {
      body.master = await f.text(); body.name = f.name;
      if (q("#tr-seed").value !== "") { say("#tr-error", t("Give a seed or a master game, not both.")); return; }
    } else if (q("#tr-seed").value !== "") {
      const s = Number(q("#tr-seed").value);
      if (!Number.isInteger(s) || s < 0) { say("#tr-error", t("The seed is a whole number, 0 or more.")); return; }
      body.seed = s;
    }
    say("#tr-head", t("Drawing the master game…"));
    try {
      if (!T.info) T.info = await call("/api/info");  // the letters a blank may stand for
      show(await call("/api/duplicate", body)); } catch (e) { say("#tr-error", e.message); say("#tr-head"); }
  }

  function show(d) {
    T.d = d;
    T.placed = []; T.pick = null; T.sent = false;
    q("#tr-blank").hidden = true;
    const tot = d.totals;
    const pct = d.history.length ? t("{pct} %", { pct: pct1(tot.percent) }) : "–";
    say("#tr-head", t("Turn {n} of {all} · you {you} / top {top} ({pct}) · tops found: {tops} · {lang}, lexicon {lexicon}",
                      { n: d.turn, all: d.turns, you: tot.you, top: tot.top, pct, tops: tot.tops, lang: d.lang, lexicon: d.lexicon }));
    q("#tr-sheet").hidden = false;
    q("#tr-sheet").setAttribute("href", `/api/duplicate/${d.id}/sheet`);
    q("#tr-sheet").setAttribute("download", `heuri-${d.game}-sheet.csv`);
    showDraw(d.draw);
    history(d.history);
    const running = d.phase === "turn";
    for (const id of ["#tr-move", "#tr-submit", "#tr-clear"]) q(id).disabled = !running;
    q("#tr-move").placeholder = d.notation === "fisf" ? "H4 MOT" : "8D WORD";
    say("#tr-hint", d.notation === "fisf"
      ? t("Click a tile of the draw, then a square of the board (a placed tile clicked again goes back to the draw); or type the move, e.g. H4 WORD across (row H), 4H WORD down, a blank in lower case.")
      : t("Click a tile of the draw, then a square of the board (a placed tile clicked again goes back to the draw); or type the move, e.g. 8D WORD across, H4 WORD down, a blank in lower case."));
    if (running) {
      q("#tr-move").value = "";
      say("#tr-result"); say("#tr-summary");
      q("#tr-next").hidden = true;
      q("#tr-board").innerHTML = d.board.svg;
      labels();
      q("#tr-clock").classList.remove("settled");
      T.deadline = performance.now() + 1000 * d.left_s;
      tick();
      clearInterval(T.timer);
      T.timer = setInterval(tick, 250);
      q("#tr-move").focus();
    } else {
      clearInterval(T.timer);
      q("#tr-clock").classList.remove("low");
      q("#tr-clock").classList.add("settled");
      say("#tr-clock", d.over ? t("Game over") : t("Turn {n} settled", { n: d.turn }));
      q("#tr-board").innerHTML = d.result.svg;
      labels();
      result(d);
      q("#tr-next").hidden = d.over;
      if (!d.over) q("#tr-next").focus();
      summary(d);
    }
  }

  // The board's coordinates in the game's notation: FISF names rows by letters, columns by
  // numbers (the server's board is drawn with GCG's: rows 1-15, columns A-O).
  function labels() {
    const svg = q("#tr-board svg");
    if (!svg || !T.d || T.d.notation !== "fisf") return;
    const cell = svg.viewBox.baseVal.width / (T.d.board ? T.d.board.grid.length + 1 : 16), half = cell / 2;
    for (const x of svg.querySelectorAll(":scope > text")) {
      const cx = parseFloat(x.getAttribute("x")), cy = parseFloat(x.getAttribute("y"));
      const i = (v) => Math.round((v - cell - half) / cell);
      if (Math.abs(cy - half) < 0.01 && cx > cell) x.textContent = String(i(cx) + 1);
      else if (Math.abs(cx - half) < 0.01 && cy > cell) x.textContent = String.fromCharCode(65 + i(cy));
    }
  }

  function showDraw(dr) {
    say("#tr-drawtext", t("Draw: {draw}", { draw: dr.text }));
    const notes = [];
    if (dr.rejected.length) notes.push(t("Rejected (too few vowels or consonants) and drawn again: {racks}.", { racks: dr.rejected.join(", ") }));
    if (dr.no_move.length) notes.push(t("Sent back (no move on the board) and drawn again: {racks}.", { racks: dr.no_move.join(", ") }));
    say("#tr-drawnote", notes.join(" "));
    T.tiles = dr.leave.map((x) => ({ ...x, leave: true })).concat(dr.new.map((x) => ({ ...x, leave: false })));
    drawTiles();
  }

  function drawTiles() {
    const box = q("#tr-draw");
    box.textContent = "";
    const running = T.d && T.d.phase === "turn";
    T.tiles.forEach((x, i) => {
      const used = T.placed.some((p) => p.i === i);
      const b = node("button", { class: "tilebtn" + (x.leave ? " leave" : "") + (T.pick === i ? " picked" : ""), "data-i": String(i),
                                 "data-tile": x.tile, title: x.leave ? t("kept from the last turn") : t("new tile") });
      b.append(node("span", { class: "l" }, x.tile), node("sub", {}, x.tile === "?" ? "" : String(x.value)));
      b.disabled = used || !running;
      box.append(b);
    });
  }

  function tick() {
    const left = Math.max(0, (T.deadline - performance.now()) / 1000);
    const s = Math.ceil(left);
    say("#tr-clock", `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`);
    q("#tr-clock").classList.toggle("low", left <= 30);
    if (left <= 0 && !T.sent) {  // the gong: what is written is handed in
      clearInterval(T.timer);
      handIn(true);
    }
  }

  async function handIn(timeUp) {
    const d = T.d;
    if (!d || d.phase !== "turn" || T.busy) return;
    say("#tr-move-error");
    const text = q("#tr-move").value.trim();
    T.busy = true;
    try {
      T.sent = true;
      show(await call(`/api/duplicate/${d.id}/move`, { turn: d.turn, move: text }));
    } catch (e) {
      T.sent = false;
      say("#tr-move-error", e.message);  // the move stays in the field, to be corrected
      if (timeUp && e.status === 400) {  // no time left to correct it: the turn ends without a move
        try { show(await call(`/api/duplicate/${d.id}/move`, { turn: d.turn, move: "" })); return; } catch (e2) { /* below */ }
      }
      if (e.status === 409 || timeUp) {
        try { show(await call(`/api/duplicate/${d.id}`)); } catch (e2) { say("#tr-error", e2.message); }
      }
    } finally { T.busy = false; }
  }

  async function next() {
    const d = T.d;
    if (!d || d.phase !== "result" || d.over) return;
    say("#tr-error");
    try { show(await call(`/api/duplicate/${d.id}/next`, { turn: d.turn })); } catch (e) {
      say("#tr-error", e.message);
      if (e.status === 409) { try { show(await call(`/api/duplicate/${d.id}`)); } catch (e2) { say("#tr-error", e2.message); } }
    }
  }

  // why a move scored 0, in the page's language where the server said what it was
  const reasonText = (r) => (r.reason_kind ? window.heuriErrorText({ error: r.reason, kind: r.reason_kind, params: r.reason_params }) : r.reason);

  function result(d) {
    const r = d.result;
    const box = q("#tr-result");
    box.textContent = "";
    let mine;
    if (!r.move) mine = r.timed_out ? t("Time was up: no move handed in, 0 points.") : t("No move handed in: 0 points.");
    else if (r.reason) mine = t("Your move {move}: 0 points ({reason}).", { move: r.move, reason: reasonText(r) });
    else if (r.is_top) mine = t("Your move {move}: {score} points, the top!", { move: r.move, score: r.score });
    else mine = t("Your move {move}: {score} points, {diff} under the top.", { move: r.move, score: r.score, diff: r.top_score - r.score });
    if (r.refused.length && !r.move) mine += " " + t("Not taken: {move} ({reason}).", { move: r.refused[0][0], reason: r.reason_kind === "late" ? reasonText(r) : r.refused[0][1] });
    const a = node("p", { id: "tr-yours", class: r.is_top ? "good" : r.score ? "" : "bad" }, mine);
    const top = node("p", { id: "tr-top" });
    top.append(node("b", {}, t("Top: {move}, {score} points.", { move: r.top, score: r.top_score })));
    if (r.tops.length > 1) top.append(document.createTextNode(" " + t("Equal tops: {moves}.", { moves: r.tops.slice(1).join(", ") })));
    const tot = d.totals;
    const run = node("p", { id: "tr-total" }, t("So far: you {you} of {top} points ({pct} %), tops found: {tops} of {n}.",
                                                  { you: tot.you, top: tot.top, pct: pct1(tot.percent), tops: tot.tops, n: d.history.length }));
    const why = [];
    why.push(r.bingo_moves ? t("Bingos on this board with this draw: {n}.", { n: r.bingo_moves }) : t("No bingo with this draw on this board."));
    if (r.p_septet !== null && r.p_septet !== undefined) why.push(t("Before the draw, the chance of a rack spelling a word was {p} %.", { p: (100 * r.p_septet).toFixed(1) }));
    box.append(a, top, run, node("p", { class: "hint" }, why.join(" ")));
  }

  function summary(d) {
    const box = q("#tr-summary");
    box.textContent = "";
    if (!d.over) return;
    const tot = d.totals;
    box.append(node("p", { id: "tr-final" }, t("Game over: you scored {you} of the master game's {top} points ({pct} %), with {tops} tops in {n} turns.",
                                               { you: tot.you, top: tot.top, pct: pct1(tot.percent), tops: tot.tops, n: d.turns })));
    if (d.seed !== null && d.seed !== undefined) {
      box.append(node("p", { class: "hint" }, t("This master game is seed {seed}: heuri duplicate new --lang {lang} --seed {seed} writes it.", { seed: d.seed, lang: d.lang })));
    }
  }

  function history(rows) {
    const tb = q("#tr-history tbody");
    tb.textContent = "";
    for (const h of rows) {
      const tr = node("tr", { class: h.is_top ? "top" : h.reason ? "null" : "" });
      const mv = node("td", { class: "mv" }, h.move || "–");
      if (h.reason) mv.title = reasonText(h);
      tr.append(node("td", {}, String(h.turn)), node("td", { class: "mv" }, h.draw), mv, node("td", {}, String(h.score)),
                node("td", { class: "mv" }, h.top), node("td", {}, String(h.top_score)));
      tb.prepend(tr);
    }
  }

  // -- tiles placed by clicking -------------------------------------------------------------------
  function squareAt(ev) {
    const svg = q("#tr-board svg");
    if (!svg) return null;
    const b = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
    const n = T.d.board.grid.length, cell = vb.width / (n + 1);
    const c = Math.floor(((ev.clientX - b.left) * vb.width / b.width) / cell) - 1;
    const r = Math.floor(((ev.clientY - b.top) * vb.height / b.height) / cell) - 1;
    return r >= 0 && c >= 0 && r < n && c < n ? [r, c] : null;
  }

  function boardClick(ev) {
    const d = T.d;
    if (!d || d.phase !== "turn") return;
    const sq = squareAt(ev);
    if (!sq) return;
    const [r, c] = sq;
    const at = T.placed.findIndex((p) => p.r === r && p.c === c);
    if (at >= 0) {  // a tile placed this turn goes back to the draw
      T.placed.splice(at, 1);
      q("#tr-blank").hidden = true;
    } else if (T.pick !== null && !d.board.grid[r][c]) {
      const x = T.tiles[T.pick];
      T.placed.push({ r, c, i: T.pick, tile: x.tile === "?" ? "" : x.tile });
      if (x.tile === "?") askBlank(T.placed.length - 1);
      T.pick = null;
    } else if (T.pick === null) {
      say("#tr-move-error", t("Click a tile of the draw first, then the square."));
      return;
    } else return;
    say("#tr-move-error");
    drawTiles(); drawPlaced(); writeMove();
  }

  function askBlank(k) {
    const box = q("#tr-blank");
    box.textContent = "";
    box.append(node("span", { class: "hint" }, t("The blank is:") + " "));
    const info = T.info ? T.info.langs.find((l) => l.code === T.d.lang) : null;
    const letters = info ? info.tiles.map((x) => x.text) : [];
    for (const l of letters) {
      const b = node("button", { class: "tilebtn blankpick", "data-letter": l }, l.toLowerCase());
      b.addEventListener("click", () => { T.placed[k].tile = l.toLowerCase(); box.hidden = true; drawPlaced(); writeMove(); });
      box.append(b);
    }
    box.hidden = false;
  }

  function drawPlaced() {
    const svg = q("#tr-board svg");
    if (!svg) return;
    svg.querySelectorAll("g.tent").forEach((g) => g.remove());
    const vb = svg.viewBox.baseVal, cell = vb.width / (T.d.board.grid.length + 1);
    const ns = "http://www.w3.org/2000/svg";
    for (const p of T.placed) {
      const g = document.createElementNS(ns, "g");
      g.setAttribute("class", "tent");
      g.setAttribute("pointer-events", "none");
      const x = cell * (p.c + 1), y = cell * (p.r + 1);
      const rc = document.createElementNS(ns, "rect");
      for (const [k, v] of Object.entries({ x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, rx: 4 })) rc.setAttribute(k, v);
      const tx = document.createElementNS(ns, "text");
      for (const [k, v] of Object.entries({ x: x + cell / 2, y: y + cell / 2, "font-size": cell * 0.5, "font-weight": "bold" })) tx.setAttribute(k, v);
      tx.textContent = (p.tile || "?").replace(/[[\]]/g, "");
      g.append(rc, tx);
      svg.append(g);
    }
  }

  // The move the placed tiles make, in the game's notation, the tiles on the board written
  // out (the whole word); "" with a message when they are not one word's.
  function writeMove() {
    const grid = T.d.board.grid, n = grid.length, P = T.placed;
    if (!P.length) { q("#tr-move").value = ""; return; }
    const placedAt = (r, c) => P.find((p) => p.r === r && p.c === c);
    const full = (r, c) => r >= 0 && c >= 0 && r < n && c < n && (grid[r][c] || placedAt(r, c));
    let across;
    if (P.length === 1) {
      const [r, c] = [P[0].r, P[0].c];
      across = full(r, c - 1) || full(r, c + 1) || !(full(r - 1, c) || full(r + 1, c));
    } else if (P.every((p) => p.r === P[0].r)) across = true;
    else if (P.every((p) => p.c === P[0].c)) across = false;
    else { q("#tr-move").value = ""; say("#tr-move-error", t("The tiles placed are not in one row or one column.")); return; }
    const along = (p) => (across ? p.c : p.r);
    let lo = Math.min(...P.map(along)), hi = Math.max(...P.map(along));
    const fixed = across ? P[0].r : P[0].c;
    const sq = (k) => (across ? [fixed, k] : [k, fixed]);
    while (lo > 0 && full(...sq(lo - 1))) lo--;
    while (hi < n - 1 && full(...sq(hi + 1))) hi++;
    let word = "";
    for (let k = lo; k <= hi; k++) {
      const [r, c] = sq(k);
      const p = placedAt(r, c);
      if (!p && !grid[r][c]) { q("#tr-move").value = ""; say("#tr-move-error", t("The tiles placed leave a gap.")); return; }
      if (p && !p.tile) { q("#tr-move").value = ""; say("#tr-move-error", t("Choose the letter of the blank.")); return; }
      word += p ? p.tile : grid[r][c];
    }
    const [r0, c0] = sq(lo);
    const col = String.fromCharCode(65 + c0), row = String.fromCharCode(65 + r0);
    let coord;
    if (T.d.notation === "fisf") coord = across ? `${row}${c0 + 1}` : `${c0 + 1}${row}`;
    else coord = across ? `${r0 + 1}${col}` : `${col}${r0 + 1}`;
    say("#tr-move-error");
    q("#tr-move").value = `${coord} ${word}`;
  }

  function clearPlaced() {
    T.placed = []; T.pick = null;
    q("#tr-blank").hidden = true;
    q("#tr-move").value = "";
    say("#tr-move-error");
    drawTiles(); drawPlaced();
  }

  document.addEventListener("DOMContentLoaded", async () => {
    if (!q("#trainer")) return;
    if (window.i18nReady) await window.i18nReady;  // its labels in the page's language
    build();
    const showLang = () => say("#tr-lang", langText());
    q("#lang").addEventListener("change", () => setTimeout(showLang, 0));
    q("#lexicon").addEventListener("change", showLang);
    document.querySelector('#tabs button[data-view="trainer"]').addEventListener("click", showLang);
    q("#tr-start").addEventListener("click", start);
    q("#tr-master").addEventListener("change", showLang);
    q("#tr-submit").addEventListener("click", () => handIn(false));
    q("#tr-move").addEventListener("keydown", (e) => { if (e.key === "Enter") handIn(false); });
    q("#tr-move").addEventListener("input", () => { if (T.placed.length) { T.placed = []; drawTiles(); drawPlaced(); } });
    q("#tr-clear").addEventListener("click", clearPlaced);
    q("#tr-next").addEventListener("click", next);
    q("#tr-draw").addEventListener("click", (ev) => {
      const b = ev.target.closest("button.tilebtn");
      if (!b || b.disabled) return;
      const i = parseInt(b.dataset.i, 10);
      T.pick = T.pick === i ? null : i;
      drawTiles();
    });
    q("#tr-board").addEventListener("click", boardClick);
  });
})();
