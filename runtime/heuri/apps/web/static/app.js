// heuri serve: the page's script. Every board is the server's SVG (heuri.render.board_svg);
// this script only asks the JSON API (/api/...) and wires clicks and keys.
"use strict";

const $ = (sel) => document.querySelector(sel);
const N = 15;
const S = { info: null, lang: null, lexicon: "", grid: null, sel: null, preview: null, rows: [], game: null, turn: 0,
            play: null, playCoord: null };

async function api(path, body) {
  const opt = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" },
                                          body: JSON.stringify(body) };
  const r = await fetch(path, opt);
  let data;
  try { data = await r.json(); } catch (e) { data = { error: t("the server answered {status} {text}", { status: r.status, text: r.statusText }) }; }
  if (!r.ok) {
    const err = new Error(window.heuriErrorText(data) || t("error {status}", { status: r.status }));
    err.status = r.status; err.kind = data.kind; err.params = data.params || {}; throw err;
  }
  return data;
}

function showError(id, err) {
  const el = $(id);
  el.textContent = err ? String(err.message || err) : "";
}

// a message about one input, in the element "<id>-error" next to it; the input keeps its text
function fieldError(id, err) {
  const box = $(`${id}-error`);
  if (box) box.textContent = err ? String(err.message || err) : "";
  const input = $(id);
  if (input) input.classList.toggle("bad", Boolean(err));
}

// whether a key pressed in this element is typing (a text field), not a command of the page
function isTyping(target) {
  if (!target || !target.tagName) return false;
  if (target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable) return true;
  return target.tagName === "INPUT" && !["checkbox", "radio", "file", "button", "submit", "reset", "range", "color"]
    .includes((target.type || "text").toLowerCase());
}

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// -- squares: data-sq is the GCG name, row number then column letter ("8H") --------------
function sqName(r, c) { return `${r + 1}${String.fromCharCode(65 + c)}`; }
function sqParse(name) { return [parseInt(name.slice(0, -1), 10) - 1, name.charCodeAt(name.length - 1) - 65]; }
function squareRect(box, r, c) { return box.querySelector(`rect.sq[data-sq="${sqName(r, c)}"]`); }

function overlay(box, r, c, cls) {
  const sq = squareRect(box, r, c);
  if (!sq) return;
  const svg = box.querySelector("svg");
  const o = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const a of ["x", "y", "width", "height"]) o.setAttribute(a, sq.getAttribute(a));
  o.setAttribute("class", cls);
  o.setAttribute("pointer-events", "none");
  svg.appendChild(o);
}

function onSquare(box, fn) {
  box.addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-sq]");
    if (t && box.contains(t)) fn(...sqParse(t.getAttribute("data-sq")));
  });
}

// -- the info: languages, engines, palette -----------------------------------------------
async function init() {
  await window.i18nReady;  // the interface language's catalogue (i18n.js)
  S.info = await api("/api/info");
  const ls = $("#lang"), gl = $("#gcg-lang");
  for (const l of S.info.langs) {
    ls.append(el("option", { value: l.code }, `${langName(l.code, l.name)} (${l.code})`));
    gl.append(el("option", { value: l.code }, `${langName(l.code, l.name)} (${l.code})`));
  }
  for (const e of S.info.engines) $("#engine").append(el("option", { value: e }, e));
  if (!S.info.records) {  // the server reads no files: uploads only (heuri serve --records DIR opens a folder)
    for (const id of ["#gcg-path", "#gcg-analysis"]) {
      $(id).disabled = true;
      $(id).title = t("start the server with heuri serve --records DIR to open the files under DIR");
    }
  }
  // the lexicons of every language served, for the Game view (a record's #lexicon chooses by default)
  for (const l of S.info.langs) {
    for (const x of l.lexicons || []) {
      $("#gcg-lexicon").append(el("option", { value: x.name, "data-lang": l.code },
                                  x.default ? t("{lexicon} ({lang}, default)", { lexicon: x.name, lang: l.code })
                                            : `${x.name} (${l.code})`));
    }
  }
  $("#gcg-lexicon-box").hidden = !S.info.langs.some((l) => (l.lexicons || []).length > 1);
  ls.addEventListener("change", () => setLang(ls.value, true));
  $("#lexicon").addEventListener("change", () => { S.lexicon = $("#lexicon").value; clearMoves(); refresh(); });
  $("#engine").addEventListener("change", () => { if ($("#rack").value.trim()) rank(); });
  setLang(S.info.langs[0].code, true);
}

// a Scrabble language's name in the interface's language (the spec's English name for others)
function langName(code, name) {
  const names = { ca: t("Catalan"), de: t("German"), en: t("English"), es: t("Spanish"), fr: t("French"),
                  nl: t("Dutch"), pl: t("Polish") };
  return names[code] || name;
}

function langInfo() { return S.info.langs.find((l) => l.code === S.lang); }

// a rack to show as an example in the board's language: a multi-letter tile in brackets
// where the language has one (Spanish AEIRS[CH]?), else plain letters (AEIRST?)
function exampleRack() {
  const multi = langInfo().tiles.find((x) => x.tile.length > 1);
  return multi ? `AEIRS${multi.text}?` : "AEIRST?";
}

function setLang(code, reset) {
  S.lang = code;
  $("#lang").value = code;
  // several packs of the language (heuri lexicon import): a choice of lexicon
  const lx = langInfo().lexicons || [];
  const sel = $("#lexicon");
  sel.textContent = "";
  for (const x of lx) sel.append(el("option", { value: x.default ? "" : x.name }, x.default ? t("{lexicon} (default)", { lexicon: x.name }) : x.name));
  S.lexicon = "";
  $("#lexicon-box").hidden = lx.length < 2;
  const pal = $("#palette");
  pal.textContent = "";
  for (const t of langInfo().tiles) {
    const b = el("button", { class: "tilebtn" + (t.tile.length > 1 ? " multi" : ""), "data-tile": t.text,
                             title: window.t("{tile}: {value} points, {count} tiles", { tile: t.tile, value: t.value, count: t.count }) });
    b.append(el("span", { class: "l" }, t.tile), el("sub", {}, String(t.value)));
    pal.append(b);
  }
  pal.append(el("button", { class: "tilebtn", "data-tile": "?", title: t("a blank") }, "?"));
  $("#rack").placeholder = t("e.g. {rack}", { rack: exampleRack() });
  pal.append(el("button", { class: "tilebtn wide", "data-tile": "⌫", title: t("remove the last tile") }, "⌫"));
  if (reset) {
    S.grid = Array.from({ length: N }, () => Array(N).fill(""));
    S.sel = null;
    $("#score0").value = 0; $("#score1").value = 0;
    clearMoves();
    refresh();
  }
}

// -- Position view --------------------------------------------------------------------------
function rackText() {
  // upper case outside brackets and inside them: a rack has no lower-case blanks ('?')
  return $("#rack").value.replace(/\s+/g, "").toUpperCase();
}

function cgpOf() {
  const rows = S.grid.map((row) => {
    let out = "", run = 0;
    for (const t of row) {
      if (!t) { run++; continue; }
      if (run) { out += run; run = 0; }
      out += t;
    }
    return out + (run ? run : "");
  });
  const a = parseInt($("#score0").value || "0", 10), b = parseInt($("#score1").value || "0", 10);
  return `${rows.join("/")} ${rackText()}/ ${a}/${b} 0`;
}

async function refresh() {
  showError("#pos-error", null);
  // letters typed quickly send several requests: only the last answer is drawn, so that an
  // earlier answer's grid does not undo the letters typed after it
  const seq = S.refreshSeq = (S.refreshSeq || 0) + 1;
  try {
    const d = await api("/api/position", { lang: S.lang, lexicon: S.lexicon || undefined, cgp: cgpOf() });
    if (seq !== S.refreshSeq) return;
    S.grid = d.grid;
    S.position = d;
    $("#cgp").value = d.cgp;
    drawPosition(d.svg);
    showPositionInfo(d);
  } catch (e) { if (seq === S.refreshSeq) positionError(e); }
}

// a refused position: next to the rack when the rack is at fault, else above the moves
function positionError(e) {
  if (e && (e.kind === "bad-rack" || (e.kind === "rack-not-in-bag" && rackText()))) fieldError("#rack", e);
  else showError("#pos-error", e);
}

function showPositionInfo(d) {
  $("#pos-info").textContent = t("lexicon {lexicon} · bag {bag} tiles; unseen (bag and the opponent's rack):", { lexicon: d.lexicon, bag: d.bag }) +
    (d.warning ? ` · ${window.heuriWarningText(d)}` : "");
  const un = $("#pos-unseen");
  un.textContent = "";
  for (const [t, n] of d.unseen) un.append(el("span", { class: "u" }, n > 1 ? `${t}×${n}` : t));
}

function drawPosition(svg) {
  const box = $("#pos-board");
  const shown = S.preview || S.position;
  box.innerHTML = svg;
  if ($("#lanes").checked && shown) for (const [r, c] of shown.lane_squares) overlay(box, r, c, "lane");
  if (S.sel && !S.preview) overlay(box, S.sel[0], S.sel[1], "selected");
}

function clearMoves() {
  S.rows = []; S.preview = null;
  $("#moves tbody").textContent = "";
  $("#moves-count").textContent = "";
  $("#think-box").hidden = true; $("#think-table").hidden = true;
  $("#think-table tbody").textContent = ""; $("#think-status").textContent = "";
  showError("#think-error", null);
  $("#preview").hidden = true;
  if (window.Explain) Explain.reset();
}

async function rank() {
  showError("#pos-error", null);
  fieldError("#rack", null);
  clearMoves();
  if (!rackText()) { fieldError("#rack", t("Type a rack first (e.g. {rack}).", { rack: exampleRack() })); return; }
  await refresh();
  try {
    const d = await api("/api/best", { lang: S.lang, lexicon: S.lexicon || undefined, cgp: cgpOf(),
                                       engine: $("#engine").value, top: 100, coords: heuriCoords.get() });
    S.rows = d.rows;
    const tb = $("#moves tbody");
    d.rows.forEach((m, i) => {
      const tr = el("tr", { class: "moverow", "data-i": String(i) });
      tr.append(el("td", {}, String(i + 1)), el("td", { class: "mv" }, heuriCoords.said(m.word || m.move)), el("td", {}, String(m.score)),
                el("td", {}, m.bingo_expectation.toFixed(2)), el("td", {}, m.bingo_probability.toFixed(3)),
                el("td", { class: "v" }, m.equity.toFixed(2)),
                el("td", { class: "mv" }, m.leave), el("td", { class: "fish" }, m.fish ? t("fish") : ""));
      tr.addEventListener("click", () => preview(i));
      tb.append(tr);
    });
    $("#moves-count").textContent = t("{count} candidates ({engine}, lexicon {lexicon}); the first {shown} shown. Click a move to see it on the board.",
                                      { count: d.count, engine: d.engine, lexicon: d.lexicon, shown: d.rows.length });
    if (window.Explain) Explain.ranked({ lang: S.lang, lexicon: S.lexicon || undefined, cgp: cgpOf(),
                                         engine: $("#engine").value, top: 100 });
    $("#think-box").hidden = !(S.position && S.position.bag > 0);  // an empty bag is the endgame's
  } catch (e) { positionError(e); }
}

// "think longer": heuri's best moves raced by two-ply rollouts (POST /api/think)
async function think() {
  showError("#think-error", null);
  const seconds = Number($("#think-seconds").value);
  const cgp = cgpOf();
  $("#think").disabled = true;
  $("#think-table").hidden = true;
  $("#think-status").textContent = t("Thinking for {seconds} s…", { seconds });
  try {
    const d = await api("/api/think", { lang: S.lang, lexicon: S.lexicon || undefined, cgp, seconds,
                                        coords: heuriCoords.get() });
    if (cgp !== cgpOf()) return;  // the position changed meanwhile: this race is another position's
    const tb = $("#think-table tbody");
    tb.textContent = "";
    const fmt = (x) => x.toFixed(1);
    d.rows.forEach((m, i) => {
      const sim = m.mean === null ? "—" : m.stderr === null ? fmt(m.mean) : `${fmt(m.mean)} ± ${fmt(m.stderr)}`;
      const tr = el("tr", { class: m.alive ? "moverow" : "moverow out" });
      tr.append(el("td", {}, String(i + 1)), el("td", { class: "mv" }, heuriCoords.said(m.word || m.move)),
                el("td", {}, m.static.toFixed(2)), el("td", { class: "v" }, sim), el("td", {}, String(m.rollouts)),
                el("td", { class: "fish" }, m.alive ? "" : t("halved out")));
      const j = S.rows.findIndex((r) => r.move === m.move);
      if (j >= 0) { tr.dataset.i = String(j); tr.addEventListener("click", () => preview(j)); }
      tb.append(tr);
    });
    $("#think-table").hidden = false;
    $("#think-status").textContent = t("{rollouts} rollouts in {seconds} s: heuri's best {count} moves played two turns ahead against racks the opponent may hold. The first is its choice.",
                                       { rollouts: d.rollouts, seconds: d.seconds.toFixed(1), count: d.rows.length });
  } catch (e) {
    $("#think-status").textContent = "";
    showError("#think-error", e);
  } finally { $("#think").disabled = false; }
}

async function preview(i) {
  showError("#pos-error", null);
  const m = S.rows[i];
  document.querySelectorAll("#moves tr.on, #think-table tr.on").forEach((t) => t.classList.remove("on"));
  document.querySelector(`#moves tr[data-i="${i}"]`).classList.add("on");
  // the same move in the race, when it ran: both tables show what the board previews
  document.querySelectorAll("#think-table tr[data-i]").forEach((t) => {
    if (Number(t.dataset.i) === i) t.classList.add("on");
  });
  if (window.Explain) Explain.select(i);
  if (m.move.startsWith("-")) {  // an exchange or the pass: nothing to draw
    S.preview = null; drawPosition(S.position.svg);
    $("#preview").hidden = false; $("#apply").hidden = true;
    $("#preview-text").textContent = m.move === "-" ? t("pass")
      : m.leave ? t("exchange {tiles}, keep {leave}", { tiles: m.move.slice(1), leave: m.leave })
                : t("exchange {tiles}, keep nothing", { tiles: m.move.slice(1) });
    return;
  }
  try {
    const d = await api("/api/preview", { lang: S.lang, lexicon: S.lexicon || undefined, cgp: cgpOf(), move: m.move });
    d.word = heuriCoords.show(d.word || d.move);
    S.preview = d;
    drawPosition(d.svg);
    $("#preview").hidden = false; $("#apply").hidden = false;
    $("#preview-text").textContent = d.leave
      ? t("{move}: {score} points ({words}), keep {leave}", { move: d.word, score: d.score, words: d.words.join(", "), leave: d.leave })
      : t("{move}: {score} points ({words}), keep nothing", { move: d.word, score: d.score, words: d.words.join(", ") });
  } catch (e) { showError("#pos-error", e); }
}

async function applyPreview() {
  if (!S.preview) return;
  const fields = S.preview.cgp_after.split(" ");
  $("#rack").value = fields[1].split("/")[0];
  const sc = fields[2].split("/");
  $("#score0").value = sc[0]; $("#score1").value = sc[1];
  await loadCgp(S.preview.cgp_after);
}

async function loadCgp(text, field) {
  showError("#pos-error", null);
  if (field) fieldError(field, null);
  try {
    const d = await api("/api/position", { lang: S.lang, lexicon: S.lexicon || undefined, cgp: text });
    S.grid = d.grid;
    $("#rack").value = d.rack;
    $("#score0").value = d.scores[0]; $("#score1").value = d.scores[1];
    clearMoves();
    S.position = d;
    $("#cgp").value = d.cgp;
    drawPosition(d.svg);
    showPositionInfo(d);
  } catch (e) { if (field) fieldError(field, e); else showError("#pos-error", e); }
}

function setSquare(tok) {
  if (!S.sel) return;
  const [r, c] = S.sel;
  const blank = $("#edit-blank").checked;
  S.grid[r][c] = tok ? (blank ? tok.toLowerCase() : tok.toUpperCase()) : "";
  clearMoves();
  refresh();
}

// the selected square moves by (dr, dc) when the board has a square there
function stepSelection(dr, dc) {
  const [r, c] = S.sel;
  const nr = r + dr, nc = c + dc;
  if (nr < 0 || nc < 0 || nr >= N || nc >= N) return false;
  S.sel = [nr, nc];
  return true;
}

// typing on the board writes a word: each letter moves the selection on, across or down as
// the last arrow key pointed (across at first); Backspace on an empty square steps back
function positionKeys(ev) {
  if (!S.sel || document.activeElement !== $("#pos-board")) return;
  const [r, c] = S.sel;
  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  const step = S.editDown ? [1, 0] : [0, 1];
  if (moves[ev.key]) {
    ev.preventDefault();
    S.editDown = ev.key === "ArrowUp" || ev.key === "ArrowDown";
    stepSelection(...moves[ev.key]);
    drawPosition(S.position.svg);
  } else if (ev.key === "Backspace") {
    ev.preventDefault();
    if (!S.grid[r][c]) stepSelection(-step[0], -step[1]);
    setSquare("");
  } else if (ev.key === "Delete" || ev.key === " ") {
    ev.preventDefault(); setSquare("");
  } else if (ev.key.length === 1 && /\p{L}/u.test(ev.key)) {
    ev.preventDefault();
    setSquare(ev.key);  // the letter on its square (the board is redrawn once the server answers) ...
    stepSelection(...step);  // ... by then with the selection on the next square
  } else if (ev.key === "Escape") {
    S.sel = null; drawPosition(S.position.svg);
  }
}

function palette(ev) {
  const b = ev.target.closest("button.tilebtn");
  if (!b) return;
  const t = b.getAttribute("data-tile");
  if (S.sel && S.paletteToBoard) {
    if (t !== "?" && t !== "⌫") { setSquare(t); stepSelection(...(S.editDown ? [1, 0] : [0, 1])); }
    else if (t === "⌫") setSquare("");
    $("#pos-board").focus();
    return;
  }
  const rk = $("#rack");
  if (t === "⌫") rk.value = rk.value.replace(/(\[[^\]]*\]|.)$/u, "");
  else rk.value += t;
  rk.focus();
}

// -- Game view -------------------------------------------------------------------------------
async function loadGame() {
  showError("#game-error", null);
  for (const id of ["#gcg-file", "#gcg-path", "#gcg-analysis"]) fieldError(id, null);
  const f = $("#gcg-file").files[0];
  const lx = $("#gcg-lexicon").selectedOptions[0];
  const body = { lang: $("#gcg-lang").value || (lx && lx.value ? lx.dataset.lang : undefined),
                 lexicon: $("#gcg-lexicon").value || undefined,
                 analyze: $("#gcg-analyze").checked, engine: $("#engine").value,
                 analysis: $("#gcg-analysis").value.trim() || undefined, coords: heuriCoords.get() };
  if (f) {
    if (f.size > S.info.limits.body_bytes) {
      fieldError("#gcg-file", t("{name}: {size} bytes; a game record is a few KB", { name: f.name, size: f.size }));
      return;
    }
    body.gcg = await f.text(); body.name = f.name;
  } else if ($("#gcg-path").value.trim()) body.path = $("#gcg-path").value.trim();
  else {
    fieldError("#gcg-file", S.info.records ? t("Choose a .gcg file or type its path under the records folder.")
                                           : t("Choose a .gcg file."));
    return;
  }
  $("#turn-info").textContent = body.analyze ? t("analysing the game (a few seconds)…") : t("reading…");
  try {
    S.game = await api("/api/game", body);
  } catch (e) {
    // next to the field it concerns: the analysis folder, else the record (uploaded or by path)
    const msg = String(e.message || "");
    if (msg.startsWith("analysis")) fieldError("#gcg-analysis", e);
    else fieldError(body.gcg !== undefined ? "#gcg-file" : "#gcg-path", e);
    $("#turn-info").textContent = ""; return;
  }
  const g = S.game;
  // which word list answered, and the plays it does not hold, at the top
  const gameLang = S.info.langs.find((l) => l.code === g.lang);
  const language = gameLang ? `${langName(g.lang, gameLang.name)} (${g.lang})` : g.lang;  // the record's, not the header's
  $("#game-head").textContent = t("{language} · lexicon {lexicon}", { language, lexicon: g.lexicon }) +
    (g.record_lexicon && g.record_lexicon.toUpperCase() !== g.lexicon.toUpperCase() ? " " + t("(the record's: {lexicon})", { lexicon: g.record_lexicon }) : "") +
    (g.analysed ? " · " + t("engine {engine}", { engine: g.engine }) : "");
  showLangOf("game");
  const off = g.turns.filter((t) => t.off_list);
  const ban = $("#game-banner");
  ban.textContent = "";
  ban.hidden = !off.length;
  if (off.length) {
    ban.append(el("b", {}, off.length === 1 ? t("1 move not in {lexicon}", { lexicon: g.lexicon })
                                           : t("{n} moves not in {lexicon}", { n: off.length, lexicon: g.lexicon })));
    ban.append(document.createTextNode(": " + off.map((x) => `${x.n} ${x.word || x.move} (${x.off_words})`).join(", ") + ". " +
      t("Not scored: no rank, no equity lost.")));
  }
  const tb = $("#turns tbody");
  tb.textContent = "";
  S.game.turns.forEach((t, i) => {
    const tr = el("tr", { class: "turnrow" + (t.off_list ? " offlist" : ""), "data-i": String(i) });
    const lost = el("td", {}, t.equity_lost == null ? "" : t.equity_lost.toFixed(1));
    if (t.off_list) { lost.textContent = ""; lost.append(el("span", { class: "badge offlist", title: t.off_words }, window.t("not in {lexicon}", { lexicon: g.lexicon }))); }
    tr.append(el("td", {}, String(t.n)), el("td", {}, t.nick), el("td", { class: "mv" }, t.rack), el("td", { class: "mv" }, heuriCoords.said(t.word || t.move)),
              el("td", {}, String(t.score)), el("td", {}, String(t.total)), lost,
              el("td", { class: "mv" }, t.best && t.best !== t.move ? heuriCoords.said(t.best_word || t.best) : ""));
    tr.addEventListener("click", () => showTurn(i));
    tb.append(tr);
  });
  showTurn(0);
}

function showTurn(i) {
  const g = S.game;
  if (!g || !g.turns.length) return;
  S.turn = Math.max(0, Math.min(g.turns.length - 1, i));
  const t = g.turns[S.turn];
  $("#game-board").innerHTML = t.svg;
  $("#turn-no").textContent = window.t("turn {n} of {count}", { n: t.n, count: g.turns.length });
  document.querySelectorAll("#turns tr.on").forEach((x) => x.classList.remove("on"));
  const row = document.querySelector(`#turns tr[data-i="${S.turn}"]`);
  row.classList.add("on");
  row.scrollIntoView({ block: "nearest" });
  const pts = `${t.score >= 0 ? "+" : ""}${t.score}`;
  let txt = t.rack ? window.t("{player} with {rack}: {move} {points}, total {total}", { player: t.nick, rack: t.rack, move: heuriCoords.said(t.word || t.move), points: pts, total: t.total })
                   : window.t("{player}: {move} {points}, total {total}", { player: t.nick, move: heuriCoords.said(t.word || t.move), points: pts, total: t.total });
  if (t.after && t.after.length) txt += " · " + window.t("then {events}", { events: t.after.join(" · ") });
  if (t.off_list) txt += " · " + window.t("not in {lexicon}: {words} (not scored)", { lexicon: g.lexicon, words: t.off_words });
  if (g.analysed && t.best) {
    const best = { engine: g.engine, move: heuriCoords.said(t.best_word || t.best), v: t.best_v.toFixed(1) };
    txt += " · " + (t.off_list ? window.t("{engine} plays {move} (v {v}, dashed)", best)
         : t.equity_lost ? window.t("equity lost {lost}: {engine} plays {move} (v {v}, dashed)", { lost: t.equity_lost.toFixed(2), ...best })
                         : window.t("{engine} agrees", best));
    if (t.sim_mean != null) {  // the analysis thought longer: what its simulation says of the turn
      txt += " · " + window.t("simulation: {move} {best}, the move played {mean} ± {se} over {n} rollouts, {lost} given up",
        { move: heuriCoords.said(t.sim_best_word || t.sim_best), best: t.sim_best_mean.toFixed(1), mean: t.sim_mean.toFixed(1),
          se: t.sim_stderr == null ? "—" : t.sim_stderr.toFixed(1), n: t.sim_rollouts, lost: t.sim_lost.toFixed(1) });
    }
    const note = (t.note || "").split("; ").filter((x) => x && !x.startsWith("not in ")).join("; ");
    if (note) txt += ` · ${note}`;  // "not in <lexicon>" is said above
  }
  if (S.turn === g.turns.length - 1) txt += " · " + window.t("final {scores}", { scores: g.final.join("–") });
  if (g.warnings.length) {
    // the first warning is the record's other lexicon when there is one: said in the page's language
    const first = g.lexicon_warning
      ? window.t("The record names the lexicon {named}; heuri's {pack} pack answers with another word list: {words}.", g.lexicon_warning)
      : window.heuriNoteText((g.warning_parts || [])[0], g.warnings[0]);
    txt += " · " + window.t("{n} warning(s): {first}", { n: g.warnings.length, first });
  }
  $("#turn-info").textContent = txt;
}

// -- Play view -------------------------------------------------------------------------------
async function newGame() {
  showError("#play-error", null);
  for (const id of ["#play-seed", "#play-name", "#play-move", "#play-ex"]) fieldError(id, null);
  const body = { lang: S.lang, lexicon: S.lexicon || undefined, engine: $("#engine").value, first: $("#play-first").value };
  if ($("#play-seed").value !== "") body.seed = parseInt($("#play-seed").value, 10);
  if (!$("#play-seed").validity.valid || Number.isNaN(body.seed)) {
    fieldError("#play-seed", t("A seed is a whole number from 0 (or nothing, for a random bag).")); return;
  }
  if ($("#play-name").value.trim()) body.name = $("#play-name").value;
  $("#play-status").textContent = t("dealing…");
  try {
    const d = await api("/api/play", body);
    placeReset(); $("#play-hint-text").textContent = "";
    drawPlay(d);
  } catch (e) {
    $("#play-status").textContent = "";
    const msg = String(e.message || "");
    if (e.kind === "bad-name" || msg.startsWith("name:")) fieldError("#play-name", e);
    else if (msg.startsWith("seed:")) fieldError("#play-seed", e);
    else showError("#play-error", e);
  }
}

async function playMove(text) {
  // the field the move was typed in: its message goes next to it, its text stays when refused
  const field = text.startsWith("-") && text !== "-" ? "#play-ex" : "#play-move";
  if (!S.play) { fieldError(field, t("Start a new game first.")); return; }
  showError("#play-error", null);
  fieldError("#play-move", null); fieldError("#play-ex", null);
  $("#play-status").textContent = t("heuri is thinking…");
  try {
    // the turn the move answers: a move sent twice, or from a stale tab, is refused (409)
    drawPlay(await api(`/api/play/${S.play.id}/move`, { move: text, turn: S.play.turn, coords: heuriCoords.get() }));
    $("#play-move").value = ""; $("#play-ex").value = ""; S.playCoord = null;
    placeReset(); drawPlay(S.play);
  } catch (e) {
    if (e.status === 409) showError("#play-error", e); else fieldError(field, e);
    $("#play-status").textContent = "";
    if (e.status === 409) {  // another tab moved: show the game as it is now
      try { drawPlay(await api(`/api/play/${S.play.id}`)); } catch (e2) { showError("#play-error", e2); }
    }
  }
}

function drawPlay(d) {
  S.play = d;
  $("#play-board").innerHTML = d.svg;
  if (S.playCoord) overlay($("#play-board"), S.playCoord[0], S.playCoord[1], "selected");
  $("#play-scores").innerHTML = "";
  for (const who of ["you", "heuri"]) {
    const s = el("div", { class: "score" + (d.to_move === who && !d.over ? " turn" : "") });
    s.append(el("span", {}, (d.names || {})[who] || (who === "you" ? t("you") : who)), el("b", {}, String(d.scores[who])));
    $("#play-scores").append(s);
  }
  $("#play-rack").innerHTML = d.rack_svg;
  $("#play-bag").textContent = !d.over ? t("(bag {bag}, heuri's rack hidden)", { bag: d.bag })
    : d.heuri_rack ? t("(bag {bag}, heuri's rack {rack})", { bag: d.bag, rack: d.heuri_rack })
                   : t("(bag {bag}, heuri's rack empty)", { bag: d.bag });
  const un = $("#play-unseen");
  un.textContent = "";
  for (const [t, n] of d.unseen) un.append(el("span", { class: "u" }, n > 1 ? `${t}×${n}` : t));
  const tb = $("#play-history tbody");
  tb.textContent = "";
  d.history.forEach((h, i) => {
    const end = h.kind === "end_points" || h.kind === "end_penalty";  // the racks left at the end
    const tr = el("tr", end ? { class: "endrow" } : h.review ? { title: reviewText(h.review) } : {});
    tr.append(el("td", {}, end ? "" : String(i + 1)), el("td", {}, (d.names || {})[h.nick] || (h.nick === "you" ? t("you") : h.nick)),
              el("td", { class: "mv" }, heuriCoords.show(h.word || h.move)),
              el("td", {}, String(h.score)), el("td", {}, String(h.total)));
    tb.prepend(tr);
  });
  $("#play-exchange").disabled = !d.can_exchange || d.over;
  $("#play-go").disabled = $("#play-pass").disabled = d.over;
  $("#play-status").textContent = d.over ? t("game over") : d.endgame ? t("heuri played its endgame search's move; your turn") : t("your turn");
  $("#play-lexicon").textContent = t("lexicon {lexicon}", { lexicon: d.lexicon });
  const end = $("#play-end");
  end.textContent = "";
  if (d.over) {
    end.append(el("b", {}, t("{result}: you {you}, heuri {heuri}.", { result: resultText(d.result), you: d.scores.you, heuri: d.scores.heuri }) + " "));
  }
  playExtras(d);
}

function resultText(result) {
  return result === "you win" ? t("you win") : result === "heuri wins" ? t("heuri wins") : result === "a draw" ? t("a draw") : result;
}

function playSquare(r, c) {
  if (!S.play || S.play.over) return;
  const prev = S.playCoord;
  const down = prev && prev[0] === r && prev[1] === c && prev[2];
  S.playCoord = [r, c, !down];
  const coord = heuriCoords.square(r, c, S.playCoord[2]);
  const word = $("#play-move").value.split(/\s+/)[1] || "";
  $("#play-move").value = `${coord} ${word}`;
  drawPlay(S.play);
  $("#play-move").focus();
}

// -- Play view: tiles placed by clicking, the hint, the review, the download ------------------
// S.place: the rack tile picked (its index in the rack's picture) and the tiles put on the board,
// [{r, c, tok, idx}] (tok: the move's text for the tile, "[CH]", lower case for a blank)
S.place = { picked: null, tiles: [], across: true };

function placeReset() { S.place.picked = null; S.place.tiles = []; }

function playLang() { return S.info.langs.find((l) => l.code === (S.play ? S.play.lang : S.lang)) || langInfo(); }

// the board of a CGP as tokens by square ("" empty): which squares hold a tile
function cgpGrid(cgp) {
  return cgp.split(" ")[0].split("/").map((row) => {
    const out = [];
    for (const m of row.matchAll(/(\d+)|(\[[^\]]+\])|(\p{L})/gu)) {
      if (m[1]) for (let k = 0; k < parseInt(m[1], 10); k++) out.push("");
      else out.push(m[2] || m[3]);
    }
    return out;
  });
}

// the move's text of the tile drawn as `shown` in the rack ("CH" → "[CH]"); a blank asks its letter
function rackTileToken(shown) {
  if (shown !== "?") return shown.length > 1 ? `[${shown}]` : shown;
  const said = window.prompt(t("Which letter does the blank stand for?")) || "";
  const want = said.trim().replace(/^\[|\]$/g, "").toUpperCase();
  const tile = playLang().tiles.find((x) => x.tile.toUpperCase() === want);
  if (!tile) {
    if (said.trim()) fieldError("#play-move", t("{letter} is not a letter of this game; the blank stays on the rack.", { letter: said.trim() }));
    return null;
  }
  return tile.tile.length > 1 ? `[${tile.tile.toLowerCase()}]` : tile.tile.toLowerCase();
}

// the GCG text of the tiles placed ("8H WORD", "." for a tile already there), or an error
function placedMove() {
  const tiles = S.place.tiles;
  if (!tiles.length) return { text: "" };
  const grid = cgpGrid(S.play.cgp);
  let across = S.place.across;
  if (tiles.length > 1) {
    if (tiles.every((x) => x.r === tiles[0].r)) across = true;
    else if (tiles.every((x) => x.c === tiles[0].c)) across = false;
    else return { error: t("The tiles placed are not on one row or one column.") };
  }
  const at = (k) => (across ? [tiles[0].r, k] : [k, tiles[0].c]);
  const pos = tiles.map((x) => (across ? x.c : x.r));
  let lo = Math.min(...pos), hi = Math.max(...pos);
  const filled = (k) => { const [r, c] = at(k); return k >= 0 && k < grid.length && grid[r][c] !== ""; };
  while (filled(lo - 1)) lo--;
  while (filled(hi + 1)) hi++;
  let word = "";
  for (let k = lo; k <= hi; k++) {
    const [r, c] = at(k);
    const mine = tiles.find((x) => x.r === r && x.c === c);
    if (mine) word += mine.tok;
    else if (grid[r][c]) word += ".";
    else return { error: t("The tiles placed leave a gap at {square}.", { square: sqName(r, c) }) };
  }
  const [r0, c0] = at(lo);
  const coord = heuriCoords.square(r0, c0, across);
  return { text: `${coord} ${word}` };
}

function placedToInput() {
  const m = placedMove();
  fieldError("#play-move", m.error || null);
  if (m.text !== undefined && (m.text || S.place.tiles.length === 0)) $("#play-move").value = m.text;
}

function playBoardClick(r, c) {
  if (!S.play || S.play.over) return;
  const mine = S.place.tiles.findIndex((x) => x.r === r && x.c === c);
  if (S.place.picked !== null && mine < 0 && !cgpGrid(S.play.cgp)[r][c]) {
    const shown = rackShown(S.place.picked);
    const tok = shown === null ? null : rackTileToken(shown);
    if (tok !== null) {
      S.place.tiles.push({ r, c, tok, idx: S.place.picked });
      if (S.place.tiles.length === 1) S.playCoord = [r, c, S.place.across];
      placedToInput();
    }
    S.place.picked = null;
    drawPlay(S.play);
    return;
  }
  if (mine >= 0) {  // a tile placed: back to the rack
    S.place.tiles.splice(mine, 1);
    placedToInput(); drawPlay(S.play);
    return;
  }
  if (S.place.tiles.length && S.playCoord && S.playCoord[0] === r && S.playCoord[1] === c) {
    setPlayDir(!S.place.across);  // a second click on the first square turns the word
    return;
  }
  playSquare(r, c);
  S.place.across = S.playCoord[2];
  $("#play-dir").textContent = S.place.across ? "→" : "↓";
}

function setPlayDir(across) {
  S.place.across = across;
  $("#play-dir").textContent = across ? "→" : "↓";
  if (S.playCoord) S.playCoord[2] = across;
  if (S.place.tiles.length) placedToInput();
  else if (S.playCoord) {  // the coordinate typed so far, turned
    const [r, c] = S.playCoord;
    const coord = heuriCoords.square(r, c, across);
    const word = $("#play-move").value.split(/\s+/)[1] || "";
    $("#play-move").value = `${coord} ${word}`;
  }
  if (S.play) drawPlay(S.play);
}

// the letters shown on the rack's tile number idx (0-based), null when there is none
function rackShown(idx) {
  const g = $("#play-rack").querySelector(`g.tile[data-sq="${idx + 1}"] text`);
  return g ? g.textContent : null;
}

function rackClick(ev) {
  const g = ev.target.closest("g.tile[data-sq]");
  if (!g || !S.play || S.play.over) return;
  const idx = parseInt(g.getAttribute("data-sq"), 10) - 1;
  const placed = S.place.tiles.findIndex((x) => x.idx === idx);
  if (placed >= 0) { S.place.tiles.splice(placed, 1); placedToInput(); }  // back from the board
  else S.place.picked = S.place.picked === idx ? null : idx;
  drawPlay(S.play);
}

// what drawPlay adds: the tiles picked and placed, the download, the review of your last move
function playExtras(d) {
  for (const g of $("#play-rack").querySelectorAll("g.tile[data-sq]")) {
    const idx = parseInt(g.getAttribute("data-sq"), 10) - 1;
    g.classList.toggle("used", S.place.tiles.some((x) => x.idx === idx));
    g.classList.toggle("picked", S.place.picked === idx);
  }
  const svg = $("#play-board svg");
  for (const x of S.place.tiles) {
    const sq = squareRect($("#play-board"), x.r, x.c);
    if (!svg || !sq) continue;
    const ns = "http://www.w3.org/2000/svg";
    const g = document.createElementNS(ns, "g");
    g.setAttribute("class", "pending");
    g.setAttribute("data-sq", sqName(x.r, x.c));
    const rect = document.createElementNS(ns, "rect");
    for (const a of ["x", "y", "width", "height"]) rect.setAttribute(a, sq.getAttribute(a));
    const txt = document.createElementNS(ns, "text");
    const size = parseFloat(sq.getAttribute("width"));
    txt.setAttribute("x", String(parseFloat(sq.getAttribute("x")) + size / 2));
    txt.setAttribute("y", String(parseFloat(sq.getAttribute("y")) + size / 2));
    txt.setAttribute("font-size", String(size * (x.tok.length > 1 ? 0.4 : 0.55)));
    txt.textContent = x.tok.replace(/[[\]]/g, "");
    g.append(rect, txt);
    svg.appendChild(g);
  }
  const a = $("#play-download");
  a.hidden = false;
  a.href = `/api/play/${d.id}/gcg`;
  a.download = `heuri-${d.over ? "game" : "so-far"}.gcg`;
  for (const id of ["#play-hint", "#play-dir", "#play-clear"]) $(id).disabled = d.over;
  if (S.hintTurn !== d.turn) $("#play-hint-text").textContent = "";
  if (S.inferTurn !== d.turn) $("#play-infer-text").textContent = "";
  const rv = $("#play-review");
  rv.textContent = d.review ? reviewText(d.review) : "";
  rv.classList.toggle("lost", Boolean(d.review && d.review.equity_lost > 0));
}

// "heuri would have played ..." for a review of one of your moves (service's _review)
function reviewText(r) {
  if (r.equity_lost === 0) {
    return t("heuri would have played the same: {move}, {score} points.", { move: heuriCoords.show(r.best_word || r.best), score: r.best_score });
  }
  const diff = r.score - r.best_score;
  return t("heuri would have played {move} for {score} points; yours scored {yours} ({diff} points, {lost} of equity lost).",
           { move: heuriCoords.show(r.best_word || r.best), score: r.best_score, yours: r.score, diff: (diff > 0 ? "+" : "") + diff,
             lost: r.equity_lost.toFixed(1) });
}

async function playHint() {
  if (!S.play || S.play.over) { fieldError("#play-move", t("Start a new game first.")); return; }
  const turn = S.play.turn;
  $("#play-hint-text").textContent = t("heuri is looking…");
  try {
    const d = await api("/api/best", { lang: S.play.lang, lexicon: S.play.lexicon, cgp: S.play.cgp,
                                       engine: S.play.engine, top: 1, coords: heuriCoords.get() });
    const m = d.rows[0];
    S.hintTurn = turn;
    $("#play-hint-text").textContent = t("Hint: {move}, {score} points (equity {equity}).",
                                         { move: heuriCoords.said(m.word || m.move), score: m.score, equity: m.equity.toFixed(1) });
  } catch (e) { $("#play-hint-text").textContent = ""; showError("#play-error", e); }
}

// "What may heuri hold?": the likeliest leaves heuri kept with its last move, from that move
// as you saw it (service's play_infer); the probability before the move beside each
async function playInfer() {
  if (!S.play) { fieldError("#play-move", t("Start a new game first.")); return; }
  const box = $("#play-infer-text");
  if (!S.play.history.some((h) => h.nick === "heuri" && ["play", "exchange", "pass"].includes(h.kind))) {
    box.textContent = t("heuri has not moved yet.");
    return;
  }
  box.textContent = t("heuri is looking…");
  try {
    const d = await api(`/api/play/${S.play.id}/infer?coords=${heuriCoords.get()}`);
    S.inferTurn = S.play.turn;
    box.textContent = "";
    box.append(el("b", {}, t("After {move}, heuri likely kept:", { move: heuriCoords.show(d.word) })), " ");
    box.append(d.leaves.slice(0, 5).map((x) => t("{leave} {p} % (before its move {q} %)",
      { leave: x.leave, p: (100 * x.prob).toFixed(1), q: (100 * x.prior).toFixed(1) })).join(" · "));
  } catch (e) { box.textContent = ""; showError("#play-error", e); }
}

function wirePlay() {
  $("#play-rack").addEventListener("click", rackClick);
  $("#play-hint").addEventListener("click", playHint);
  $("#play-infer").addEventListener("click", playInfer);
  $("#play-dir").addEventListener("click", () => setPlayDir(!S.place.across));
  $("#play-clear").addEventListener("click", () => {
    placeReset(); $("#play-move").value = ""; fieldError("#play-move", null); S.playCoord = null;
    if (S.play) drawPlay(S.play);
  });
  // typing takes over from the tiles placed by clicking (the text stays as typed)
  $("#play-move").addEventListener("input", () => {
    fieldError("#play-move", null);
    if (S.place.tiles.length) { placeReset(); drawPlay(S.play); }
  });
  for (const id of ["#rack", "#cgp", "#play-ex", "#play-name", "#play-seed", "#gcg-path", "#gcg-analysis"]) {
    $(id).addEventListener("input", () => fieldError(id, null));
  }
  document.addEventListener("keydown", (e) => {
    if (S.view !== "play" || isTyping(e.target) || !S.play) return;
    if (e.key === "ArrowRight") { e.preventDefault(); setPlayDir(true); }
    else if (e.key === "ArrowDown") { e.preventDefault(); setPlayDir(false); }
    else if (e.key === "Escape") { $("#play-clear").click(); }
  });
}

// the header's language: in the Game view, the loaded record's (it decides there); elsewhere the board's
function showLangOf(view) {
  const sel = $("#lang");
  const record = view === "game" && S.game;
  sel.value = record ? S.game.lang : S.lang;
  sel.disabled = Boolean(record);
  sel.title = record ? t("the record's language (the Position and Play views keep theirs)") : "";
}

// -- wiring -----------------------------------------------------------------------------------
function showView(name) {
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("on", b.dataset.view === name));
  document.querySelectorAll(".view").forEach((v) => v.classList.toggle("on", v.id === `view-${name}`));
  S.view = name;
  showLangOf(name);
  // the view in the address (#play), so that a reload (the Interface switch) comes back to it
  try { history.replaceState(null, "", name === "position" ? location.pathname : `#${name}`); } catch (e) { /* no history */ }
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => showView(b.dataset.view)));
  $("#rank").addEventListener("click", rank);
  $("#think").addEventListener("click", think);
  $("#rack").addEventListener("keydown", (e) => { if (e.key === "Enter") rank(); });
  $("#rack").addEventListener("focus", () => { S.paletteToBoard = false; });
  $("#palette").addEventListener("mousedown", () => { S.paletteToBoard = document.activeElement === $("#pos-board"); });
  $("#palette").addEventListener("click", palette);
  $("#lanes").addEventListener("change", () => drawPosition(S.preview ? S.preview.svg : S.position.svg));
  $("#clear").addEventListener("click", () => { S.grid = S.grid.map((r) => r.map(() => "")); S.sel = null; clearMoves(); refresh(); });
  $("#load-cgp").addEventListener("click", () => loadCgp($("#cgp").value, "#cgp"));
  $("#apply").addEventListener("click", applyPreview);
  $("#unpreview").addEventListener("click", () => { S.preview = null; $("#preview").hidden = true; drawPosition(S.position.svg); });
  for (const id of ["#score0", "#score1"]) $(id).addEventListener("change", refresh);
  onSquare($("#pos-board"), (r, c) => {
    if (S.preview) return;
    S.sel = [r, c]; $("#pos-board").focus(); drawPosition(S.position.svg);
  });
  $("#pos-board").addEventListener("keydown", positionKeys);
  $("#gcg-load").addEventListener("click", loadGame);
  $("#gcg-file").addEventListener("change", () => { $("#gcg-path").value = ""; loadGame(); });
  $("#gcg-path").addEventListener("keydown", (e) => { if (e.key === "Enter") { $("#gcg-file").value = ""; loadGame(); } });
  $("#prev").addEventListener("click", () => showTurn(S.turn - 1));
  $("#next").addEventListener("click", () => showTurn(S.turn + 1));
  $("#turn-open").addEventListener("click", () => {
    const t = S.game && S.game.turns[S.turn];
    if (!t || !t.cgp) { showError("#game-error", window.t("load the game with 'analyse' to open a turn's position")); return; }
    if (S.game.lang !== S.lang) setLang(S.game.lang, false);
    // the position is answered by the lexicon that answered the game
    const lx = (langInfo().lexicons || []).find((x) => x.name === S.game.lexicon);
    S.lexicon = lx && !lx.default ? lx.name : "";
    $("#lexicon").value = S.lexicon;
    showView("position"); loadCgp(t.cgp);
  });
  document.addEventListener("keydown", (e) => {
    if (S.view !== "game" || isTyping(e.target)) return;  // a ticked box or a chosen file keeps the focus
    if (e.key === "ArrowLeft") { e.preventDefault(); showTurn(S.turn - 1); }
    if (e.key === "ArrowRight") { e.preventDefault(); showTurn(S.turn + 1); }
  });
  $("#play-new").addEventListener("click", newGame);
  $("#play-go").addEventListener("click", () => playMove($("#play-move").value));
  $("#play-move").addEventListener("keydown", (e) => { if (e.key === "Enter") playMove($("#play-move").value); });
  $("#play-pass").addEventListener("click", () => playMove("-"));
  $("#play-exchange").addEventListener("click", () => {
    const t = $("#play-ex").value.replace(/\s+/g, "").toUpperCase();
    if (!t) { showError("#play-error", window.t("type the tiles to exchange (e.g. QU?)")); return; }
    playMove("-" + t);
  });
  onSquare($("#play-board"), playBoardClick);
  wirePlay();
  document.addEventListener("heuri-coords", () => {  // the coordinates setting changed: ask again
    if (S.rows.length) rank();
    if (S.game) loadGame();
    if (S.play) drawPlay(S.play);
  });
  S.view = "position";
  const asked = location.hash.slice(1);
  if (["game", "play", "trainer"].includes(asked)) showView(asked);
  init().catch((e) => showError("#pos-error", e));
});
