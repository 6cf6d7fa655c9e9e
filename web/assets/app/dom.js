// Small DOM helpers shared by every section. Text always goes in through textContent, never as
// HTML, so names coming from settings or other programs cannot inject markup.

/**
 * Makes an element: h("button", {type: "button", class: "x", "aria-pressed": "false"}, "text", child).
 * Attributes whose value is null, undefined or false are left out; true gives an empty attribute.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "text") element.textContent = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** A plain "this is not available" paragraph for a capability that is absent. */
export function absent(text, detail) {
  return h("div", { class: "absent" }, h("p", { class: "absent-title" }, text),
    detail ? h("p", { class: "absent-detail" }, detail) : null);
}

let alertTimer = 0;

/** Shows an error in the page's role="alert" area (replacing the previous one). */
export function showError(text) {
  const area = document.getElementById("alert");
  area.replaceChildren(h("span", {}, text), h("button", {
    type: "button", class: "alert-close", "aria-label": "Dismiss the error",
  }, "×"));
  area.hidden = false;
  area.querySelector("button").addEventListener("click", clearError);
  clearTimeout(alertTimer);
  alertTimer = setTimeout(clearError, 10000);
}

export function clearError() {
  clearTimeout(alertTimer);
  const area = document.getElementById("alert");
  area.hidden = true;
  area.replaceChildren();
}

let resultTimer = 0;

/** Announces the outcome of an action (polite live region, also visible). */
export function announce(text) {
  const line = document.getElementById("result");
  line.textContent = text;
  clearTimeout(resultTimer);
  resultTimer = setTimeout(() => { line.textContent = ""; }, 6000);
}

/** Clamps to an integer from 0 to 100 (the range of every level in the API). */
export function level(value) {
  const number = Math.round(Number(value));
  return Number.isFinite(number) ? Math.min(100, Math.max(0, number)) : 0;
}
