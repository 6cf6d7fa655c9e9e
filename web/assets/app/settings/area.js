// The settings area: takes the place of the live sections while it is open (the Settings button
// and #settings, settings-entry.js). Its views are tabs, listed in views.js: a section per
// capability with an editor of its own, the generic form for every other setting (form.js) and
// the history of changes (history.js). Opening moves the focus to its heading; closing gives it
// back to the Settings button.
import { h } from "../dom.js";
import { api } from "../net.js";
import { VIEWS, claimedKeys } from "./views.js";

let schema = null; // the schema does not change while mixerd runs: read once
let parts = null; // {heading, tabs, panels, form, history}
let onClose = () => {};

function area() {
  return document.getElementById("settings-area");
}

function selectView(name, { focus = false } = {}) {
  for (const view of VIEWS) {
    const selected = view.name === name;
    const tab = parts.tabs[view.name];
    tab.setAttribute("aria-selected", selected ? "true" : "false");
    tab.tabIndex = selected ? 0 : -1;
    parts.panels[view.name].hidden = !selected;
    if (selected && focus) tab.focus();
  }
  const view = parts.views[name];
  if (view && view.refresh) view.refresh();
}

function onTabKey(event) {
  const index = VIEWS.findIndex((view) => parts.tabs[view.name] === event.target);
  const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  let next = null;
  if (event.key in moves) next = (index + moves[event.key] + VIEWS.length) % VIEWS.length;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = VIEWS.length - 1;
  if (next === null) return;
  event.preventDefault();
  selectView(VIEWS[next].name, { focus: true });
}

function build() {
  const heading = h("h2", { id: "settings-heading", tabindex: "-1" }, "Settings");
  const close = h("button", { type: "button", class: "quiet-button" }, "Close settings");
  close.addEventListener("click", () => onClose());
  const tabs = {};
  const panels = {};
  for (const view of VIEWS) {
    tabs[view.name] = h("button", {
      type: "button", role: "tab", class: "tab", id: `settings-tab-${view.name}`,
      "aria-controls": `settings-panel-${view.name}`,
    }, view.title);
    tabs[view.name].addEventListener("click", () => selectView(view.name));
    tabs[view.name].addEventListener("keydown", onTabKey);
    panels[view.name] = h("div", {
      role: "tabpanel", class: "settings-panel", id: `settings-panel-${view.name}`,
      "aria-labelledby": `settings-tab-${view.name}`,
    });
  }
  area().replaceChildren(
    h("div", { class: "settings-head" }, heading, close),
    h("div", { class: "tabs settings-tabs", role: "tablist", "aria-label": "Settings views" },
      ...VIEWS.map((view) => tabs[view.name])),
    ...VIEWS.map((view) => panels[view.name]));
  parts = { heading, tabs, panels, views: {} };
}

function loading(text) {
  return h("p", { class: "hint" }, text);
}

/** Reads the schema, the settings and the login state, and draws every view. */
async function load() {
  for (const view of VIEWS) parts.panels[view.name].replaceChildren(loading("Loading the settings…"));
  let settings;
  let auth;
  try {
    schema ??= await api("GET", "/api/settings/schema", undefined, { quiet: true });
    [settings, auth] = await Promise.all([
      api("GET", "/api/settings", undefined, { quiet: true }),
      api("GET", "/api/auth/status", undefined, { quiet: true }).catch(() => null),
    ]);
  } catch (failure) {
    parts.panels[VIEWS[0].name].replaceChildren(loading(`The settings could not be read: ${failure.message}`));
    for (const view of VIEWS.slice(1)) parts.panels[view.name].replaceChildren();
    return;
  }
  // What every view is given: the schema and settings as read, whether login is on, and the
  // two ways to tell the others about a change (a save shows in the generic form and history;
  // a rollback puts the restored settings in every view).
  const context = {
    schema, settings, auth: auth || {}, authEnabled: Boolean(auth && auth.auth_enabled),
    claimed: claimedKeys(),
    onSaved(values) { for (const view of Object.values(parts.views)) view.saved?.(values); },
    onChanged(values) { for (const view of Object.values(parts.views)) view.show?.(values); },
  };
  for (const view of VIEWS) {
    try {
      const built = view.build(context);
      parts.views[view.name] = built;
      parts.panels[view.name].replaceChildren(built.element);
    } catch (failure) {
      parts.panels[view.name].replaceChildren(loading(`This view could not be drawn: ${failure.message}`));
    }
  }
  const shown = VIEWS.find((view) => !parts.panels[view.name].hidden);
  if (shown) parts.views[shown.name]?.refresh?.();
}

/** Shows the area (the live sections hide) and reads the settings afresh. */
export async function openSettings({ onClose: close }) {
  onClose = close;
  if (!area().hidden) return;
  if (!parts) build();
  document.getElementById("main").hidden = true;
  area().hidden = false;
  selectView(VIEWS[0].name);
  parts.heading.focus();
  await load();
}

/** Hides the area, shows the live sections again and gives the focus back to the button. */
export function closeSettings() {
  if (area().hidden) return;
  area().hidden = true;
  document.getElementById("main").hidden = false;
  document.getElementById("settings-open").focus();
}
