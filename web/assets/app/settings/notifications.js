// The notification API's part of the Security view: its key (toast_api_key) and its handlers'
// switches (toast_handlers). The key is never sent to the page; "Make a new key" makes 64 random
// hex digits here, saves them with PATCH /api/settings (the old key stops working) and shows the
// new key once, until the view is drawn again. (POST /api/toast/regenerate does the same on the
// notification port, but it needs the old key and that port is another origin.)
import { h } from "../dom.js";
import { say } from "./form.js";
import { UNCHANGED } from "./frame.js";
import { actions, card, savePatch, statusLine } from "./live.js";

// The handlers of docs/api.md section 4, in its order; a handler the settings name besides
// these (a later version's) is listed after them under its id.
const HANDLERS = [
  ["api", "API Receiver", "toasts sent with the key (POST /api/toast/send)"],
  ["system", "System", "the device link and the audio server coming and going"],
  ["stream", "Streaming", "scene switches, the stream and the recording starting and stopping"],
  ["smarthome", "Smart home", "the result of a toggle"],
  ["music", "Music", "a track change of the playing music"],
  ["plugins", "Plugins", "the plugins' own notifications"],
];

function newKey() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function buildKey(context) {
  const status = statusLine("security-key-status");
  const state = h("p", { class: "secret-state", id: "security-key-state" });
  const shown = h("input", {
    type: "text", id: "security-new-key", readonly: true, class: "key-once", spellcheck: "false",
    autocomplete: "off", "aria-describedby": "security-new-key-hint",
  });
  const once = h("div", { class: "field", hidden: true },
    h("label", { for: "security-new-key" }, "The new key"), shown,
    h("p", { class: "field-hint", id: "security-new-key-hint" },
      "Shown only now: copy it into the programs that send notifications. The old key no longer works."));
  const make = h("button", { type: "button", class: "primary-button" }, "Make a new key");
  const element = card("security-key-heading", "Notification API key",
    h("p", { class: "field-hint" }, "Programs send notifications to the device with this key "
      + "(X-API-Key, port 8889). It is never shown again after it is made."),
    h("p", { class: "field-label", id: "security-key-label" }, "Key"), state, once,
    h("div", { class: "group-actions" }, make, status));
  state.setAttribute("aria-labelledby", "security-key-label");

  const reset = (settings) => {
    const set = typeof settings.toast_api_key === "string" && settings.toast_api_key !== "";
    state.textContent = set ? "Set" : "Not set";
    state.dataset.state = set ? "set" : "unset";
  };
  const field = {
    key: "toast_api_key", path: "toast_api_key", change: () => UNCHANGED, problem: () => null,
    setError: (text) => say(status, text, { error: true }), clearError() {}, focus: () => make.focus(),
    fields: () => [field],
  };
  make.addEventListener("click", async () => {
    const key = newKey();
    const saved = await savePatch({
      fields: [field], status, button: make, context, patch: { toast_api_key: key },
      saved: "A new key is made and saved.",
    });
    if (!saved) return;
    reset(saved);
    shown.value = key;
    once.hidden = false;
    shown.focus();
    shown.select();
  });
  return { element, reset };
}

function buildHandlers(context) {
  const status = statusLine("security-handlers-status");
  const switches = new Map(); // id -> {control, saved}
  const list = h("div", { class: "settings-fields" });
  const { button, row } = actions("Save", "notification handlers", status);
  const form = h("form", { novalidate: true, class: "settings-fields" },
    h("fieldset", { class: "setting-object" }, h("legend", {}, "Show notifications of"), list), row);
  const element = card("security-handlers-heading", "Notification sources",
    h("p", { class: "field-hint" }, "Each source of notifications on the device can be switched off."), form);

  function switchFor(id, name, what) {
    const control = h("input", {
      type: "checkbox", role: "switch", id: `security-handler-${id}`,
      "aria-describedby": `security-handler-${id}-hint`,
    });
    list.append(h("div", { class: "field check" }, control,
      h("label", { for: control.id }, name),
      h("p", { class: "field-hint", id: `security-handler-${id}-hint` }, what)));
    const entry = { control, saved: true };
    switches.set(id, entry);
    return entry;
  }
  HANDLERS.forEach(([id, name, what]) => switchFor(id, name, what));

  const reset = (settings, { keepEdits = false } = {}) => {
    const values = settings.toast_handlers && typeof settings.toast_handlers === "object" ? settings.toast_handlers : {};
    for (const id of Object.keys(values)) if (!switches.has(id)) switchFor(id, id, "");
    for (const [id, entry] of switches) {
      const edited = entry.control.checked !== entry.saved;
      entry.saved = values[id] !== false;
      if (!keepEdits || !edited) entry.control.checked = entry.saved;
    }
  };
  const field = {
    key: "toast_handlers", path: "toast_handlers", change: () => UNCHANGED, problem: () => null,
    setError: (text) => say(status, text, { error: true }), clearError() {},
    focus: () => switches.values().next().value?.control.focus(), fields: () => [field],
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const patch = () => {
      const changed = {};
      for (const [id, entry] of switches) if (entry.control.checked !== entry.saved) changed[id] = entry.control.checked;
      return Object.keys(changed).length ? { toast_handlers: changed } : null;
    };
    const saved = await savePatch({ fields: [field], status, button, context, patch, saved: "Notification sources saved." });
    if (saved) reset(saved);
  });
  return { element, reset };
}

/** The two cards: {elements, reset(settings, {keepEdits})}. */
export function buildNotifications(context) {
  const has = (key) => Boolean(context.schema.properties?.[key]);
  const key = has("toast_api_key") ? buildKey(context) : null;
  const handlers = has("toast_handlers") ? buildHandlers(context) : null;
  const parts = [key, handlers].filter(Boolean);
  const reset = (settings, options) => parts.forEach((part) => part.reset(settings, options));
  reset(context.settings);
  return { elements: parts.map((part) => part.element), reset };
}
