// What every settings field shares: its label and id from its key path, its help text, and the
// block that holds label, control, help and error with aria-describedby and aria-invalid kept
// right. The field kinds are in fields.js and secret.js.
import { h } from "../dom.js";

export const UNCHANGED = undefined;

// Words that a key spells in lower case but people write otherwise.
const WORDS = {
  url: "URL", tls: "TLS", api: "API", id: "ID", ms: "(ms)", mdns: "mDNS", mqtt: "MQTT",
  http: "HTTP", socketio: "Socket.IO",
};

export function labelOf(key) {
  const words = key.split("_").filter(Boolean);
  return words.map((word, index) => {
    if (WORDS[word]) return WORDS[word];
    return index === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word;
  }).join(" ");
}

export function idOf(path) {
  return `setting-${path.replace(/[^A-Za-z0-9]+/g, "-")}`;
}

/** The help text: the schema's description, and the key path an API error would name. */
export function hintOf(path, schema) {
  const text = schema.description ? `${schema.description.replace(/\.$/, "")}. ` : "";
  return [text, h("code", {}, path)];
}

/** Label, control, help and error in one block; keeps aria-describedby and aria-invalid right. */
export function frame(path, schema, control, { inline = false, note = "", describedBy = [] } = {}) {
  const hintId = `${control.id}-hint`;
  const error = h("p", { class: "field-error", id: `${control.id}-error` });
  const describe = (withError) => {
    const ids = [...describedBy, hintId, withError ? error.id : null].filter(Boolean);
    control.setAttribute("aria-describedby", ids.join(" "));
  };
  describe(false);
  const label = h("label", { for: control.id }, labelOf(path.split(".").pop()));
  const hint = h("p", { class: "field-hint", id: hintId }, note, hintOf(path, schema));
  const element = inline
    ? h("div", { class: "field check" }, control, label, hint, error)
    : h("div", { class: "field" }, label, control, hint, error);
  return {
    element,
    setError(text) {
      error.textContent = text;
      control.setAttribute("aria-invalid", "true");
      describe(true);
    },
    clearError() {
      error.textContent = "";
      control.removeAttribute("aria-invalid");
      describe(false);
    },
  };
}
