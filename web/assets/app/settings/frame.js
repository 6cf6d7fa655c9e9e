// What every settings field shares: its label and id from its key path, its help text, and the
// block that holds label, control, help and error with aria-describedby and aria-invalid kept
// right. The field kinds are in fields.js and secret.js.
import { h } from "../dom.js";
import { labelled } from "./labelled.js";

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

/** A setting's block (labelled.js): labelled by the schema's title, else from its key; its help
 *  from the schema. */
export function frame(path, schema, control, { inline = false, note = "", describedBy = [] } = {}) {
  return labelled(control, schema.title || labelOf(path.split(".").pop()),
    { hint: [note, ...hintOf(path, schema)], inline, describedBy });
}
