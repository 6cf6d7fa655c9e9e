// One control per setting, chosen from the setting's JSON Schema (GET /api/settings/schema).
// Every field answers the same few questions, so a group can save any mix of them:
//   change()   what the user changed, as the member of a JSON merge patch: UNCHANGED, a value,
//              or null (remove the key: its default applies);
//   reset(v)   show v (a value of GET /api/settings) as the saved state;
//   problem()  what is wrong before anything is sent (text that is no JSON, a number that is none);
//   setError(text) / clearError()   the API's sentence next to the control;
//   fields()   the field and the fields inside it, to find the one an error names.
import { h } from "../dom.js";
import { UNCHANGED, frame, hintOf, idOf, labelOf } from "./frame.js";
import { secretField } from "./secret.js";
import { nameListsField } from "./rows.js";

function typeOf(schema) {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.find((type) => type && type !== "null");
}

function absentValue(value) {
  return value === undefined || value === null;
}

/** An empty box shows what applies when the key is left out, saying that it is the default. */
function placeholderOf(schema) {
  if (schema.default === undefined || schema.default === "") return null;
  return `Default: ${typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default)}`;
}

function leaf(path, schema, control, parts, options) {
  const framed = frame(path, schema, control, options);
  const field = {
    key: path.split(".").pop(), path, element: framed.element,
    setError: framed.setError, clearError: framed.clearError,
    focus: () => control.focus(), problem: () => null, fields: () => [field],
    ...parts,
  };
  return field;
}

function booleanField(path, schema) {
  const control = h("input", { type: "checkbox", role: "switch", id: idOf(path) });
  let saved;
  const shown = (value) => (typeof value === "boolean" ? value : schema.default === true);
  return leaf(path, schema, control, {
    reset(value) { saved = value; control.checked = shown(value); },
    change: () => (control.checked === shown(saved) ? UNCHANGED : control.checked),
  }, { inline: true });
}

function numberField(path, schema) {
  const control = h("input", {
    type: "number", id: idOf(path), min: schema.minimum, max: schema.maximum,
    step: typeOf(schema) === "integer" ? "1" : "any", inputmode: "numeric",
    placeholder: placeholderOf(schema),
  });
  let saved;
  return leaf(path, schema, control, {
    reset(value) { saved = value; control.value = absentValue(value) ? "" : String(value); },
    // Out-of-range numbers are sent as typed: the API's own sentence says what is allowed.
    problem: () => (control.validity.badInput ? `${path} must be a number` : null),
    change() {
      const text = control.value.trim();
      if (text === "") return absentValue(saved) ? UNCHANGED : null;
      const number = Number(text);
      return number === saved ? UNCHANGED : number;
    },
  });
}

/** A text-valued field (a select or a text input): "" means "not set: the default applies". */
function textLike(path, schema, control) {
  let saved;
  return leaf(path, schema, control, {
    reset(value) {
      saved = value;
      const text = typeof value === "string" ? value : "";
      if (control.tagName === "SELECT" && text !== "" && ![...control.options].some((o) => o.value === text)) {
        control.append(h("option", { value: text }, text)); // a value this build's list lacks
      }
      control.value = text;
    },
    change() {
      if (control.value === "") return absentValue(saved) ? UNCHANGED : null;
      return control.value === saved ? UNCHANGED : control.value;
    },
  });
}

function selectField(path, schema) {
  const none = schema.default === undefined ? "Not set" : `Default (${schema.default})`;
  const control = h("select", { id: idOf(path) }, h("option", { value: "" }, none),
    ...schema.enum.map((value) => h("option", { value: String(value) }, String(value))));
  return textLike(path, schema, control);
}

function textField(path, schema) {
  const control = h("input", {
    type: "text", id: idOf(path), autocomplete: "off", spellcheck: "false",
    maxlength: schema.maxLength, placeholder: placeholderOf(schema),
  });
  return textLike(path, schema, control);
}

/** Arrays and open objects: edited as JSON text for now (their own editors come later). */
function jsonField(path, schema) {
  const control = h("textarea", {
    id: idOf(path), rows: "3", spellcheck: "false", autocomplete: "off", class: "json-input",
    placeholder: placeholderOf(schema),
  });
  let saved;
  const parsed = () => JSON.parse(control.value);
  return leaf(path, schema, control, {
    reset(value) { saved = value; control.value = absentValue(value) ? "" : JSON.stringify(value, null, 2); },
    problem() {
      if (control.value.trim() === "") return null;
      try {
        parsed();
        return null;
      } catch {
        return `${path} is not valid JSON`;
      }
    },
    change() {
      if (control.value.trim() === "") return absentValue(saved) ? UNCHANGED : null;
      let value;
      try {
        value = parsed();
      } catch {
        return control.value; // an edit, not sendable yet: problem() says why before a save
      }
      return JSON.stringify(value) === JSON.stringify(saved) ? UNCHANGED : value;
    },
  }, { note: "As JSON. " });
}

/** An object with known members: a fieldset of their fields; its change holds only changed members. */
function objectField(path, schema) {
  const members = Object.entries(schema.properties)
    .filter(([, member]) => !member["x-live"])
    .map(([key, member]) => fieldFor(`${path}.${key}`, member));
  const id = idOf(path);
  const error = h("p", { class: "field-error", id: `${id}-error` });
  const legend = h("legend", {}, labelOf(path.split(".").pop()));
  const element = h("fieldset", { class: "setting-object", id, "aria-describedby": `${id}-hint` },
    legend, h("p", { class: "field-hint", id: `${id}-hint` }, hintOf(path, schema)), error,
    ...members.map((member) => member.element));
  const field = {
    key: path.split(".").pop(), path, element,
    reset(value) {
      const object = value && typeof value === "object" ? value : {};
      for (const member of members) member.reset(object[member.key]);
    },
    change() {
      const patch = {};
      for (const member of members) {
        const change = member.change();
        if (change !== UNCHANGED) patch[member.key] = change;
      }
      return Object.keys(patch).length ? patch : UNCHANGED;
    },
    problem: () => null,
    setError(text) {
      error.textContent = text;
      element.setAttribute("aria-describedby", `${id}-hint ${id}-error`);
    },
    clearError() {
      error.textContent = "";
      element.setAttribute("aria-describedby", `${id}-hint`);
    },
    focus: () => (members[0] ? members[0].focus() : element.focus()),
    fields: () => [field, ...members.flatMap((member) => member.fields())],
  };
  return field;
}

/** The field for one setting, by the rules of docs/web.md ("Settings"). */
export function fieldFor(path, schema) {
  const type = typeOf(schema);
  if (schema.writeOnly && type === "string") return secretField(path, schema);
  if (type === "boolean") return booleanField(path, schema);
  if (type === "integer" || type === "number") return numberField(path, schema);
  if (type === "string" && Array.isArray(schema.enum)) return selectField(path, schema);
  if (type === "string") return textField(path, schema);
  if (type === "object" && schema.properties && Object.keys(schema.properties).length) {
    return objectField(path, schema);
  }
  if (type === "object" && isNameLists(schema.additionalProperties)) return nameListsField(path, schema);
  return jsonField(path, schema);
}

/** An open object's members that are lists of names (app_aliases): rows, not JSON text. */
function isNameLists(member) {
  return Boolean(member) && typeOf(member) === "array" && Boolean(member.items) && typeOf(member.items) === "string";
}
