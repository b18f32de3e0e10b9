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

  // app.js waits for this before drawing anything in words
  window.i18nReady = load();
})();
