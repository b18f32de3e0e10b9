// Interface messages: t("English text {name}", {name: value}) answers in the page's language.
// The language: the one chosen with the switch (#ui-lang, kept in localStorage), else the
// browser's (the server reads Accept-Language); its catalogue comes from GET /api/messages.
// The page's own text is marked in index.html: data-i18n (the element's text is the
// message), data-i18n-html (a message with <b> marks), data-i18n-attr="title placeholder".
"use strict";
(function () {
  const KEY = "heuri.ui-lang";
  const I18N = { lang: "en", messages: {} };
  window.I18N = I18N;

  window.t = function (message, params) {
    let text = Object.prototype.hasOwnProperty.call(I18N.messages, message) ? I18N.messages[message] : message;
    if (params) {
      text = text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
    }
    return text;
  };

  function stored() {
    try { return window.localStorage.getItem(KEY); } catch (e) { return null; }
  }

  const squash = (s) => s.replace(/\s+/g, " ").trim();
  // a translated message with <b> marks: everything else is text
  function setMarked(el, text) {
    el.textContent = "";
    text.split(/(<b>.*?<\/b>)/).forEach((part) => {
      const m = /^<b>(.*)<\/b>$/.exec(part);
      if (m) { const b = document.createElement("b"); b.textContent = m[1]; el.append(b); }
      else if (part) el.append(document.createTextNode(part));
    });
  }

  function translatePage() {
    document.documentElement.lang = I18N.lang;
    document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = window.t(squash(el.textContent)); });
    document.querySelectorAll("[data-i18n-html]").forEach((el) => { setMarked(el, window.t(squash(el.innerHTML))); });
    document.querySelectorAll("[data-i18n-attr]").forEach((el) => {
      for (const name of el.getAttribute("data-i18n-attr").split(/\s+/)) {
        const v = el.getAttribute(name);
        if (v) el.setAttribute(name, window.t(squash(v)));
      }
    });
    const sw = document.getElementById("ui-lang");
    if (sw) {
      sw.value = I18N.lang;
      sw.addEventListener("change", () => {
        try { window.localStorage.setItem(KEY, sw.value); } catch (e) { /* private mode: this page only */ }
        window.location.reload();
      });
    }
  }

  async function load() {
    const chosen = stored();
    const q = chosen ? `?lang=${encodeURIComponent(chosen)}` : "";
    try {
      const r = await fetch(`/api/messages${q}`);
      if (r.ok) {
        const d = await r.json();
        I18N.lang = d.lang;
        I18N.messages = d.messages || {};
      }
    } catch (e) { /* no catalogue: English */ }
    if (document.readyState === "loading") {
      await new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
    }
    translatePage();
  }

  // the boards are the server's SVG with English premium labels: relabelled as the clubs
  // write them when a board is drawn (word/letter × 2 or 3)
  function relabelBoards(root) {
    if (I18N.lang === "en" || !root.querySelectorAll) return;
    const premium = { "3W": window.t("3W"), "2W": window.t("2W"), "3L": window.t("3L"), "2L": window.t("2L") };
    root.querySelectorAll("svg.board text").forEach((x) => {
      const v = premium[x.textContent];
      if (v) x.textContent = v;
    });
  }
  new MutationObserver((changes) => {
    for (const c of changes) for (const n of c.addedNodes) if (n.nodeType === 1) relabelBoards(n);
  }).observe(document.documentElement, { childList: true, subtree: true });

  // The server's refusals carry a kind and their parts (heuri.errors.KindedError's params):
  // those below are said again in the page's language; any other keeps the server's
  // English sentence. A key "kind:form" names a variant of a kind; "cause" is the kind of
  // an error another one wraps (a CGP's bad rack).
  const N_ = (s) => s;
  const ERRORS = {
    "phony": N_("{move} forms a word not in the word list: {words}."),
    "not-connected": N_("{move} does not touch any tile on the board."),
    "centre-not-covered": N_("{move}: the first move must cover the centre square, {square}."),
    "square-occupied": N_("{move}: the square {square} already holds {tile}."),
    "playthrough-mismatch": N_("{move}: the square {square} does not hold the letter written there."),
    "playthrough-mismatch:empty": N_("{move}: the square {square} is empty; only the letters already on the board go in parentheses."),
    "playthrough-mismatch:other": N_("{move}: the board has {tile} at {square}."),
    "word-extends": N_("{move}: the word goes on at {square}; write the whole word, the letters already on the board in parentheses."),
    "no-word": N_("{move} forms no word of two letters or more."),
    "no-tiles": N_("{move} places no tile."),
    "too-many-tiles:move": N_("{move} places {count} tiles; a rack holds {size}."),
    "too-many-tiles:rack": N_("The rack {text} has {count} tiles; a rack holds {size}."),
    "too-many-tiles:rack-multi": N_("The rack {text} has {count} tiles; a rack holds {size}. Write a tile of several letters in brackets: {multi}."),
    "bad-blank": N_("{move}: a blank cannot stand for {tile} in this language."),
    "game-over": N_("The game is over."),
    "exchange-not-allowed:bag": N_("Exchange {move}: the bag holds {bag} tiles; an exchange needs at least {need}."),
    "exchange-not-allowed:count": N_("Exchange {move}: {count} tiles, but the bag holds only {bag}."),
    "tiles-not-in-rack": N_("{move}: the rack {rack} lacks {tiles}."),
    "tiles-not-in-rack:draw": N_("{move}: the draw {rack} lacks {tiles} (a blank is written in lower case)."),
    "bad-coordinate": N_("{text} is not a coordinate: write the square as {across} for a word across, {down} for a word down."),
    "play-out-of-bounds": N_("{move} runs off the board."),
    "malformed-play": N_("{move} cannot be read as a move: write the coordinate, a space and the word ({across} WORD), -ABC to exchange those tiles, or - to pass."),
    "malformed-rack": N_("The rack {text}: {tile} is not a tile of this game."),
    "malformed-rack:case": N_("The rack {text}: {tile} is not a tile: write capital letters, ? for a blank and a tile of several letters in brackets."),
    "rack-not-in-bag": N_("There are more {tiles} on the board and the racks than the tile set has."),
    "bad-board:rows": N_("The CGP's board has {count} rows; it needs {size}, separated by /."),
    "bad-board:token": N_("Row {row} of the CGP's board: {text} is neither a tile nor a count of empty squares."),
    "bad-board:tile": N_("Row {row} of the CGP's board: {text} is not a tile of this game."),
    "bad-board:width": N_("Row {row} of the CGP's board covers {count} squares; it needs {size}."),
    "missing-fields": N_("The CGP has {count} fields; it needs 4 (the board, the racks, the scores, the scoreless turns), then its operations."),
    "bad-scores:parse": N_("The CGP's scores {text}: write whole numbers separated by /."),
    "bad-scores:count": N_("The CGP's racks and scores do not match: {racks} racks, {scores} scores."),
    "bad-rack:players": N_("The CGP's racks {text}: write two, separated by / (RACK/ when the other is unknown)."),
    "bad-zeros": N_("The CGP's count of scoreless turns, {text}, is not a whole number."),
    "bad-op:int": N_("The CGP's operation {name}: {text} is not a whole number."),
    "bad-op:end": N_("The CGP's operations {text}: each ends with ;."),
    "bad-name:long": N_("A name has at most {size} characters ({count} typed)."),
    "bad-name:control": N_("A name holds letters, digits and spaces."),
    "bad-name:empty": N_("A name needs at least one letter or digit."),
    "late": N_("handed in {seconds} s after the time; a late move is not taken"),
    "unknown-language": N_("{name} does not say its language (no #lexicon or #tile-distribution names it): choose it under Language."),
    "gcg:line": N_("The record cannot be read (line {line}): {detail}"),
    "gcg:file": N_("The record cannot be read: {detail}"),
    "too-many-moves": N_("{name} holds more than {size} moves; a real game has 20 to 60, so a record this long is refused."),
    "too-long": N_("The master game has {count} moves; at most {size} are taken."),
    "busy": N_("heuri is already thinking about a position; ask again when it has answered."),
  };

  // The message of a refusal ({error, kind, params}, as the API answers it) in the page's language.
  window.heuriErrorText = function (data) {
    const d = data || {};
    const p = Object.assign({}, d.params || {});
    const keys = [];
    for (const k of [d.kind, p.cause]) if (k) { if (p.form) keys.push(`${k}:${p.form}`); keys.push(k); }
    if (p.source) keys.push(`${p.source}:${p.where}`);  // a record's error: its line, the detail as it comes
    const coords = window.heuriCoords;
    if (Array.isArray(p.square) && coords) p.square = coords.square(p.square[0], p.square[1], true);
    if (coords) { p.across = coords.square(7, 7, true); p.down = coords.square(7, 7, false); }
    // the first message whose every part the server sent (else its own English sentence)
    const has = (k) => Object.prototype.hasOwnProperty.call(ERRORS, k) &&
      (ERRORS[k].match(/\{(\w+)\}/g) || []).every((m) => m.slice(1, -1) in p);
    const key = keys.find(has);
    return key ? window.t(ERRORS[key], p) : d.error || "";
  };

  // A record's warnings (heuri.errors.Note: a kind and its parts), said again in the page's
  // language; the parts are the record's own text (moves, racks, names) and numbers.
  const NOTES = {
    "gcg-early-note": N_("#note before the first move: a note comments on the move before it."),
    "gcg-shared-name": N_("The players {first} and {second} share the full name {name}."),
    "gcg-early-rack": N_("{pragma} {rack} stands before the last move (line {last}); a #rackN line gives a rack after the last move."),
    "gcg-bad-rack-field": N_("The rack field {rack} of the {event} line is not a rack the tile set allows here; it is ignored."),
    "gcg-over-pool:rack": N_("The rack {rack} and the tiles known on the other rack need {tiles} more than the tile set has left off the board."),
    "gcg-over-pool:pragma": N_("{pragma} {rack} and the tiles known on the other rack need {tiles} more than the tile set has left off the board."),
    "gcg-off-list": N_("{move}: {words} not in {lexicon}."),
    "gcg-exchange-rule": N_("Exchange {move} with about {bag} tiles in the bag (the rule: at least {need}, never more than the bag)."),
    "gcg-end-rack": N_("End-of-game line: the tiles in parentheses ({tiles}) differ from the rack {rack}; scored on ({tiles})."),
    "gcg-score": N_("{nick} {move}: recorded {recorded}, heuri scores {engine}."),
  };

  // A record's warning in the page's language: ``parts`` {line, kind, params} (null: the
  // server's English ``text`` as it comes), the first template of kind:form or kind whose
  // every part is there.
  window.heuriNoteText = function (parts, text) {
    if (!parts) return text || "";
    const p = Object.assign({}, parts.params || {});
    // the record writes standard coordinates (8H WORD): said in the page's setting
    if (p.move && window.heuriCoords) p.move = window.heuriCoords.show(p.move);
    const has = (k) => Object.prototype.hasOwnProperty.call(NOTES, k) &&
      (NOTES[k].match(/\{(\w+)\}/g) || []).every((m) => m.slice(1, -1) in p);
    const key = [p.form ? `${parts.kind}:${p.form}` : null, parts.kind].find((k) => k && has(k));
    if (!key) return text || "";
    const said = window.t(NOTES[key], p);
    return parts.line ? window.t("line {line}: {text}", { line: parts.line, text: said }) : said;
  };

  // An answer's warning (the position names another lexicon) in the page's language.
  window.heuriWarningText = function (d) {
    const p = d && d.warning_params;
    if (!p) return (d && d.warning) || "";
    let text = window.t("The position names the lexicon {named}; heuri's {pack} pack answers with another word list: {words}.", p);
    if (!p.chosen) text += " " + window.t("(No pack here knows that word list.)");
    return text;
  };

  // app.js waits for this before drawing anything in words
  window.i18nReady = load();
})();
