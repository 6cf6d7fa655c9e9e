// The macro kinds the API stores (docs/api.md, 2.10) and the fields of each, for the macro editor
// (macros-view.js). A field reads its value into the macro being built and shows a stored one;
// its `key` is the name the API's 400 sentence starts with ("url must be ...", "Missing field:
// url", "steps[2].ms ..."), so an error lands next to it. `command` is not here: the API refuses
// it from the network, and the editor shows such a macro read-only.
import { h } from "../dom.js";
import { labelled } from "./labelled.js";

const TARGETS = [["1", "Slider 1"], ["2", "Slider 2"], ["3", "Slider 3"], ["4", "Slider 4"],
  ["master", "Master"]];

export const KINDS = [
  { type: "hotkey", title: "Press keys", fields: [
    { key: "key", label: "Keys", kind: "text",
      hint: "Modifiers ctrl, shift, alt, super joined with + to one key: "
      + "ctrl+shift+m, f13, media_play_pause, volume_mute." }] },
  { type: "http", title: "Web request", fields: [
    { key: "url", label: "URL", kind: "text", inputmode: "url",
      hint: "http:// or https://. An address on this machine must be allowed in http_macro_allow." },
    { key: "method", label: "Method", kind: "select", options: [["POST", "POST"], ["GET", "GET"], ["PUT", "PUT"],
      ["DELETE", "DELETE"]] },
    { key: "body", label: "Body", kind: "textarea", hint: "Sent as JSON when it is JSON, else as text." },
    { key: "headers", label: "Headers", kind: "headers", hint: "One per line, as Name: value." }] },
  { type: "media", title: "Music player", fields: [
    { key: "action", label: "Action", kind: "select", options: [["play_pause", "Play or pause"], ["play", "Play"],
      ["pause", "Pause"], ["next", "Next"], ["previous", "Previous"], ["stop", "Stop"]] }] },
  { type: "mute", title: "Mute", fields: [
    { key: "target", label: "What to mute", kind: "select", options: TARGETS, target: true }] },
  { type: "hold_mute", title: "Hold to mute", fields: [
    { key: "target", label: "What to mute while held", kind: "select", options: TARGETS, target: true,
      hint: "Muted while the button is held down; let go and the mute is as it was before." }] },
  { type: "hold_unmute", title: "Hold to talk", fields: [
    { key: "target", label: "What to unmute while held", kind: "select", options: TARGETS.slice(0, 4),
      target: true,
      hint: "Push-to-talk: e.g. the slider of the microphone. Unmuted while held; let go and it is as before." }] },
  { type: "volume", title: "Volume", fields: [
    { key: "target", label: "Which volume", kind: "select", options: TARGETS, target: true },
    { key: "step", label: "Step", kind: "number", min: -100, max: 100,
      hint: "Fill in a step (-100 to 100, added to the volume now) or a value, not both." },
    { key: "value", label: "Value", kind: "number", min: 0, max: 100, hint: "Sets the volume (0-100)." }] },
  { type: "profile", title: "Load a profile", fields: [
    { key: "profile", label: "Profile", kind: "text", list: "settings-macro-profiles" }] },
  { type: "smarthome", title: "Smart home", fields: [
    { key: "entity_id", label: "Entity", kind: "text", list: "settings-macro-entities",
      hint: "Home Assistant's id, e.g. light.desk." },
    { key: "action", label: "Action", kind: "select", options: [["toggle", "Toggle"], ["turn_on", "Turn on"],
      ["turn_off", "Turn off"]] },
    { key: "brightness", label: "Brightness", kind: "number", min: 0, max: 100,
      hint: "Optional, for Turn on: a light's brightness, 0-100." }] },
  { type: "stream_scene", title: "Streaming scene", fields: [
    { key: "scene_name", label: "Scene", kind: "text", hint: "The OBS scene to switch to." }] },
  { type: "stream_source", title: "Streaming source", fields: [
    { key: "source_name", label: "Source", kind: "text", hint: "A source of the program scene." },
    { key: "visible", label: "Show or hide", kind: "select", options: [["toggle", "Toggle"], ["true", "Show"],
      ["false", "Hide"]], visible: true }] },
  { type: "sequence", title: "Sequence", fields: [
    { key: "steps", label: "Steps", kind: "json", rows: 6, hint: "As JSON: a list of 1-32 macros, or "
      + "{\"type\": \"delay\", \"ms\": 500}, run in order. E.g. [{\"type\": \"mute\", \"target\": 1}]." }] },
  { type: "plugin", title: "Plugin", fields: [
    { key: "plugin_type", label: "Plugin type", kind: "text", hint: "The type a running plugin handles." },
    { key: "", label: "The plugin's fields", kind: "json", rows: 4, rest: true,
      hint: "As a JSON object, e.g. {\"message\": \"hi\"}; the plugin's documentation says which." }] },
];

export const KIND_TITLES = Object.fromEntries([...KINDS.map((k) => [k.type, k.title]),
  ["command", "Run a program"], ["none", "Empty"]]);
const COMMON = new Set(["type", "name", "icon"]);

function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function control(spec, id) {
  if (spec.kind === "select") {
    return h("select", { id }, ...spec.options.map(([value, text]) => h("option", { value }, text)));
  }
  if (spec.kind === "number") {
    return h("input", { type: "number", id, min: spec.min, max: spec.max, step: "1", inputmode: "numeric" });
  }
  if (["textarea", "json", "headers"].includes(spec.kind)) {
    return h("textarea", { id, rows: String(spec.rows || 3), spellcheck: "false", autocomplete: "off",
      class: spec.kind === "textarea" ? "macro-text" : "json-input" });
  }
  return h("input", { type: "text", id, autocomplete: "off", spellcheck: "false", inputmode: spec.inputmode,
    list: spec.list });
}

/** The field of one spec: {key, element, show(macro), read(macro), problem(), setError, ...}. */
export function kindField(spec, type) {
  const id = `settings-macro-${type}-${spec.key || "rest"}`;
  const box = control(spec, id);
  const framed = labelled(box, spec.label, { hint: spec.hint });
  const text = () => box.value.trim();
  return {
    key: spec.key, path: spec.key || "plugin", element: framed.element,
    setError: framed.setError, clearError: framed.clearError, focus: framed.focus,
    show(macro) {
      const value = spec.rest ? Object.fromEntries(Object.entries(macro).filter(([k]) => !COMMON.has(k)
        && k !== "plugin_type")) : macro[spec.key];
      if (spec.kind === "headers") {
        box.value = value && typeof value === "object"
          ? Object.entries(value).map(([n, v]) => `${n}: ${v}`).join("\n") : "";
      } else if (spec.kind === "json") {
        const none = value === undefined || (spec.rest && !Object.keys(value).length);
        box.value = none ? "" : JSON.stringify(value, null, 1);
      } else if (spec.kind === "select") {
        box.value = value === undefined ? spec.options[0][0] : String(value);
      } else {
        box.value = value === undefined || value === null ? "" : String(value);
      }
    },
    problem() {
      if (spec.kind === "json" && text() !== "") {
        if (!isJson(text())) return `${spec.label} is not valid JSON.`;
        const value = JSON.parse(text());
        if (spec.rest && (typeof value !== "object" || value === null || Array.isArray(value))) {
          return `${spec.label} must be a JSON object.`;
        }
      }
      if (spec.kind === "headers") {
        const bad = text().split("\n").findIndex((line) => line.trim() !== "" && !/^[^:]+:/.test(line));
        if (bad >= 0) return `Header line ${bad + 1} has no "Name:" before its value.`;
      }
      if (spec.kind === "number" && box.validity.badInput) return `${spec.label} must be a number.`;
      return null;
    },
    /** Puts the value into `macro`; an empty optional box leaves the key out. */
    read(macro) {
      if (spec.kind === "select") {
        if (spec.target) macro[spec.key] = box.value === "master" ? "master" : Number(box.value);
        else if (spec.visible) macro[spec.key] = box.value === "toggle" ? "toggle" : box.value === "true";
        else macro[spec.key] = box.value;
        return;
      }
      if (text() === "") return;
      if (spec.kind === "number") macro[spec.key] = Number(text());
      else if (spec.kind === "json" && spec.rest) Object.assign(macro, JSON.parse(text()), { type: "plugin" });
      else if (spec.kind === "json") macro[spec.key] = JSON.parse(text());
      else if (spec.kind === "headers") {
        const lines = text().split("\n").filter((line) => line.trim() !== "");
        macro[spec.key] = Object.fromEntries(lines.map((line) => {
          const at = line.indexOf(":");
          return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        }));
      } else macro[spec.key] = spec.kind === "textarea" ? box.value : text();
    },
  };
}
