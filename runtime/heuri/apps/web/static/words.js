// Moves as people read them: the API's `word` fields (8G CA(RR)OÑE, the tiles already on
// the board in parentheses) and the coordinates setting, standard (8D across, D8 down) or
// the French federation's (FISF: rows A-O, columns 1-15; H4 across, 4H down). The setting
// is kept in this browser; until it is chosen, a French page shows FISF.
"use strict";
window.heuriCoords = {
  key: "heuri.coords",
  get() {
    let v = null;
    try { v = window.localStorage.getItem(this.key); } catch (e) { v = null; }
    if (v === "fisf" || v === "standard") return v;
    const lang = document.documentElement.lang || navigator.language || "";
    return lang.toLowerCase().startsWith("fr") ? "fisf" : "standard";
  },
  set(v) {
    try { window.localStorage.setItem(this.key, v); } catch (e) { /* private mode: this page only */ }
  },
  // The coordinate of square (r, c), 0-based, in the setting's notation.
  square(r, c, across) {
    if (this.get() === "fisf") {
      const row = String.fromCharCode(65 + r);
      return across ? `${row}${c + 1}` : `${c + 1}${row}`;
    }
    const col = String.fromCharCode(65 + c);
    return across ? `${r + 1}${col}` : `${col}${r + 1}`;
  },
  // A move's word in the page's language: the pass is a word of the language (pase, passe);
  // placements and exchanges read the same everywhere.
  said(text) {
    return text === "pass" && window.t ? window.t("pass") : text || "";
  },
  // A move text in standard coordinates (8G CA(RR)OÑE) in the setting's notation; other
  // text (-QV, pass) as it is.
  show(text) {
    if (text === "pass") return this.said(text);
    if (!text || this.get() !== "fisf") return text || "";
    const m = /^(?:(\d{1,2})([A-Za-z])|([A-Za-z])(\d{1,2}))(\s.*)?$/.exec(text);
    if (!m) return text;
    const across = m[1] !== undefined;
    const r = parseInt(across ? m[1] : m[4], 10) - 1;
    const c = (across ? m[2] : m[3]).toUpperCase().charCodeAt(0) - 65;
    return this.square(r, c, across) + (m[5] || "");
  },
};

document.addEventListener("DOMContentLoaded", () => {
  const sel = document.getElementById("coords");
  if (!sel) return;
  sel.value = window.heuriCoords.get();
  // the page's language is known once its catalogue is loaded: a French page's default is FISF
  if (window.i18nReady) window.i18nReady.then(() => { sel.value = window.heuriCoords.get(); });
  sel.addEventListener("change", () => {
    window.heuriCoords.set(sel.value);
    document.dispatchEvent(new CustomEvent("heuri-coords", { detail: sel.value }));
  });
});

// Board labels to match the setting: every board the page draws (class="board", labels
// text.cl / text.rl with data-i) is relabelled when it appears and when the setting changes,
// except a board inside [data-own-coords] (the duplicate trainer's, labelled in its game's notation).
window.heuriCoords.relabel = function (root) {
  const fisf = window.heuriCoords.get() === "fisf";
  (root || document).querySelectorAll("svg.board text.cl, svg.board text.rl").forEach((n) => {
    if (n.closest("[data-own-coords]")) return;
    const i = parseInt(n.getAttribute("data-i"), 10);
    const letter = String.fromCharCode(65 + i), number = String(i + 1);
    const want = n.classList.contains("cl") === fisf ? number : letter;
    if (n.textContent !== want) n.textContent = want;
  });
};
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver(() => window.heuriCoords.relabel()).observe(document.body, { childList: true, subtree: true });
  document.addEventListener("heuri-coords", () => window.heuriCoords.relabel());
  window.heuriCoords.relabel();
});
