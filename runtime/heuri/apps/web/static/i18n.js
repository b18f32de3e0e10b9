// Interface messages: t("English text {name}", {name: value}) answers in the page's language.
"use strict";
window.t = function (message, params) {
  let text = message;
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
  }
  return text;
};
