// The Plugins view: every plugin folder mixerd found (GET /api/plugins), with its state, restarts
// and last error kept live by the plugin_status event; Enable / Disable (POST /api/plugins/{id},
// saved as plugins.<id>.enabled); and the plugin's own settings when its manifest declares a
// settings_schema, saved as plugins.<id>.settings with PATCH /api/settings (the plugin hears
// on_settings_change). mixerd does not check those values against the manifest on a PATCH, so
// this page checks the type and the bounds before it sends them.
import { h } from "../dom.js";
import { api } from "../net.js";
import { say } from "./form.js";
import { fieldFor } from "./fields.js";
import { UNCHANGED } from "./frame.js";
import { actions, follow, loopbackRule, savePatch, statusLine } from "./live.js";

const STATES = {
  starting: "Starting", running: "Running", stopped: "Stopped (disabled)",
  failed: "Failed: it crashed 5 times in 10 minutes; enable it to try again",
  invalid: "Cannot run: its manifest is not right", incompatible: "Cannot run: made for another plugin API",
};

/** The JSON Schema fieldFor reads, from one key of a manifest's settings_schema. */
function memberSchema(spec) {
  const schema = { type: spec.type, description: spec.description || undefined };
  if (spec.default !== null && spec.default !== undefined) schema.default = spec.default;
  if (typeof spec.min === "number") schema.minimum = spec.min;
  if (typeof spec.max === "number") schema.maximum = spec.max;
  return schema;
}

/** Wraps a field with the manifest's rules, which mixerd does not check on a PATCH. */
function checked(field, spec, key) {
  const problem = field.problem;
  field.problem = () => {
    const first = problem();
    if (first) return first;
    const value = field.change();
    if (typeof value !== "number") return null;
    if (spec.type === "integer" && !Number.isInteger(value)) return `${key} must be a whole number`;
    if (typeof spec.min === "number" && value < spec.min) return `${key} must be at least ${spec.min}`;
    if (typeof spec.max === "number" && value > spec.max) return `${key} must be at most ${spec.max}`;
    return null;
  };
  return field;
}

function buildPlugin(plugin, context, settingsOf) {
  const id = `plugin-${plugin.id.replace(/[^A-Za-z0-9]+/g, "-")}`;
  const heading = h("h3", { id: `${id}-heading` }, plugin.name || plugin.id);
  const state = h("p", { class: "link-state", id: `${id}-state`, role: "status" });
  const facts = h("p", { class: "history-meta", id: `${id}-facts` });
  const lastError = h("p", { class: "field-error", id: `${id}-error` });
  const switchStatus = statusLine(`${id}-switch-status`);
  const toggle = h("button", { type: "button", class: "plugin-switch", "aria-describedby": `${id}-state` });
  const element = h("section", { class: "card settings-group plugin", "aria-labelledby": heading.id },
    heading, facts, state, lastError, h("div", { class: "group-actions" }, toggle, switchStatus));
  let info = plugin;

  function show(next = info) {
    info = next;
    facts.textContent = `${info.id} · version ${info.version || "?"} · restarts ${info.restarts ?? 0}`;
    state.dataset.state = info.state === "running" ? "up" : info.state === "starting" ? "pending"
      : info.enabled ? "down" : "off";
    state.textContent = STATES[info.state] || info.state;
    lastError.textContent = info.last_error ? `Last error: ${info.last_error}` : "";
    toggle.replaceChildren(info.enabled ? "Disable" : "Enable", h("span", { class: "sr-only" }, ` ${info.name || info.id}`));
  }
  toggle.addEventListener("click", async () => {
    toggle.disabled = true;
    say(switchStatus, "");
    try {
      const answer = await api("POST", `/api/plugins/${encodeURIComponent(info.id)}`,
        { enabled: !info.enabled }, { quiet: true });
      show(answer.plugin || info);
      say(switchStatus, info.enabled ? "Enabled." : "Disabled.");
    } catch (failure) {
      say(switchStatus, `Not switched: ${failure.message}`, { error: true });
      if (failure.status === 403) switchStatus.append(loopbackRule(context));
    } finally {
      toggle.disabled = false;
      toggle.focus(); // its words changed: keep the focus on it
    }
  });

  const schema = plugin.settings_schema && typeof plugin.settings_schema === "object" ? plugin.settings_schema : {};
  const fields = Object.entries(schema).map(([key, spec]) =>
    checked(fieldFor(`plugins.${plugin.id}.settings.${key}`, memberSchema(spec)), spec, key));
  let reset = () => {};
  if (fields.length) {
    const status = statusLine(`${id}-settings-status`);
    const { button, row } = actions("Save", `${plugin.name || plugin.id} settings`, status);
    const form = h("form", { class: "settings-fields", novalidate: true },
      h("fieldset", { class: "setting-object" }, h("legend", {}, "Its settings"),
        ...fields.map((field) => field.element)), row);
    element.append(form);
    reset = (settings, { keepEdits = false } = {}) => {
      const values = settingsOf(settings);
      for (const field of fields) if (!keepEdits || field.change() === UNCHANGED) field.reset(values[field.key]);
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const patch = () => {
        const changed = {};
        for (const field of fields) if (field.change() !== UNCHANGED) changed[field.key] = field.change();
        return Object.keys(changed).length ? { plugins: { [info.id]: { settings: changed } } } : null;
      };
      const saved = await savePatch({
        fields, patch, status, button, context, saved: `${info.name || info.id} settings saved.`,
      });
      if (saved) reset(saved);
    });
  } else {
    element.append(h("p", { class: "hint" }, "It has no settings of its own."));
  }
  show();
  return { element, show, reset, id: plugin.id };
}

/** Builds the view; answers {element, refresh, show, saved} (views.js). */
export function buildPlugins(context) {
  let settings = context.settings;
  const list = h("div", { class: "settings-groups" });
  const status = h("p", { class: "hint", role: "status" });
  const element = h("div", { class: "settings-plugins" },
    h("p", { class: "field-hint" }, "Python plugins in the data folder's plugins/executable/ "
      + "(docs/plugins.md). A disabled plugin stays off after a restart."), status, list);
  const cards = new Map(); // id -> card

  const ownSettings = (id) => (values) => {
    const entry = values.plugins && typeof values.plugins === "object" ? values.plugins[id] : null;
    return entry && typeof entry.settings === "object" && entry.settings ? entry.settings : {};
  };

  async function refresh() {
    let plugins;
    try {
      const answer = await api("GET", "/api/plugins", undefined, { quiet: true });
      plugins = Array.isArray(answer && answer.plugins) ? answer.plugins : [];
    } catch (failure) {
      status.textContent = failure.status === 404 || failure.status === 503
        ? "This mixerd runs no plugins." : `The plugins could not be read: ${failure.message}`;
      return;
    }
    status.textContent = plugins.length ? "" : "No plugins are installed.";
    const focused = document.activeElement;
    for (const plugin of plugins) {
      const known = cards.get(plugin.id);
      if (known) {
        known.show(plugin);
        continue;
      }
      const made = buildPlugin(plugin, context, ownSettings(plugin.id));
      made.reset(settings);
      cards.set(plugin.id, made);
    }
    for (const [id, made] of cards) {
      if (plugins.some((plugin) => plugin.id === id)) continue;
      made.element.remove();
      cards.delete(id);
    }
    list.replaceChildren(...plugins.map((plugin) => cards.get(plugin.id).element));
    if (focused && document.body.contains(focused)) focused.focus();
  }
  follow(["plugin_status"], (plugin) => {
    if (plugin && cards.has(plugin.id)) cards.get(plugin.id).show(plugin);
  }, element);
  return {
    element,
    refresh,
    show(values) {
      settings = values;
      cards.forEach((made) => made.reset(values));
    },
    saved(values) {
      settings = values;
      cards.forEach((made) => made.reset(values, { keepEdits: true }));
    },
  };
}
