// The settings area: takes the place of the live sections while it is open (the Settings button
// and #settings, settings-entry.js). Two views as tabs: the options (form.js) and the history of
// changes (history.js). Opening moves the focus to its heading; closing gives it back to the
// Settings button.
import { h } from "../dom.js";
import { api } from "../net.js";
import { buildForm } from "./form.js";
import { buildHistory } from "./history.js";

const VIEWS = [
  { name: "options", title: "Options" },
  { name: "history", title: "History" },
];

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
  if (name === "history" && parts.history) parts.history.refresh();
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
  parts = { heading, tabs, panels, form: null, history: null };
}

function loading(text) {
  return h("p", { class: "hint" }, text);
}

/** Reads the schema, the settings and the login state, and draws both views. */
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
    parts.panels.options.replaceChildren(loading(`The settings could not be read: ${failure.message}`));
    parts.panels.history.replaceChildren();
    return;
  }
  const authEnabled = Boolean(auth && auth.auth_enabled);
  const history = buildHistory({ authEnabled, onChanged: (values) => form.show(values) });
  const form = buildForm(schema, settings, { authEnabled, onSaved: () => {} });
  parts.form = form;
  parts.history = history;
  parts.panels.options.replaceChildren(form.element);
  parts.panels.history.replaceChildren(history.element);
  if (!parts.panels.history.hidden) history.refresh();
}

/** Shows the area (the live sections hide) and reads the settings afresh. */
export async function openSettings({ onClose: close }) {
  onClose = close;
  if (!area().hidden) return;
  if (!parts) build();
  document.getElementById("main").hidden = true;
  area().hidden = false;
  selectView("options");
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
