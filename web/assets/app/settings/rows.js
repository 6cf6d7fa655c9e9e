// A setting edited as a short list of rows of a few boxes each, with Add and Remove: a slider's
// curve points ([slider, volume] pairs) and the application aliases (a name and the names it also
// matches). JSON text would be hard to type on a phone; rows of labelled boxes are not. Answers
// the field interface of fields.js (change, reset, problem, setError, clearError, focus, fields).
import { h } from "../dom.js";
import { UNCHANGED, hintOf, idOf, labelOf } from "./frame.js";

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const absent = (value) => value === undefined || value === null;

/**
 * spec: {
 *   item          a row's name in labels and sentences ("Point" gives "Point 2 slider");
 *   columns       [{label, attrs, wide}] each row's boxes: visible label and input attributes;
 *   add           the Add button's text;
 *   min, max      how many rows there may be (Add and Remove stop there);
 *   toRows(value) the saved value (absent: the rows to start from) as rows of strings;
 *   fromRows(rows) the rows (trimmed strings) as the value to save;
 *   patchOf(value, saved)  the merge patch member for a changed value (default: the value);
 *   problem(rows) what is wrong before anything is sent, or null;
 *   active()      false while the setting does not apply (its rows are then left as saved).
 * }
 */
export function rowsField(path, schema, spec) {
  const id = idOf(path);
  const hintId = `${id}-hint`;
  const key = path.split(".").pop();
  const error = h("p", { class: "field-error", id: `${id}-error` });
  const list = h("ol", { class: "rows-list" });
  const empty = h("p", { class: "rows-empty" }, `No ${spec.item.toLowerCase()} yet.`);
  const add = h("button", { type: "button", class: "quiet-button rows-add", id: `${id}-add` }, spec.add);
  const element = h("fieldset", { class: "setting-object rows-field", id, "aria-describedby": hintId },
    h("legend", {}, schema.title || labelOf(key)),
    h("p", { class: "field-hint", id: hintId }, hintOf(path, schema)), empty, list, error, add);
  let saved;
  let rows = []; // [{inputs: [HTMLInputElement]}]
  let invalidRow = -1;

  const read = () => rows.map((row) => row.inputs.map((input) => input.value.trim()));
  const describe = (input) => input.setAttribute("aria-describedby",
    error.textContent ? `${hintId} ${error.id}` : hintId);

  function render(values, focusRow = -1) {
    rows = values.map((cells, r) => {
      const inputs = spec.columns.map((column, c) => h("input", {
        id: `${id}-${r}-${c}`, autocomplete: "off", spellcheck: "false", ...column.attrs,
        value: cells[c] ?? "",
      }));
      const remove = h("button", { type: "button", class: "quiet-button rows-remove" }, "Remove",
        h("span", { class: "sr-only" }, ` ${spec.item.toLowerCase()} ${r + 1}`));
      remove.disabled = values.length <= spec.min;
      remove.addEventListener("click", () => {
        const next = read();
        next.splice(r, 1);
        // The focus stays in the list: on the row that took this one's place, else the one above.
        render(next, Math.min(r, next.length - 1));
        if (!next.length) add.focus();
      });
      const cellsOf = spec.columns.map((column, c) => h("div", { class: `rows-cell${column.wide ? " wide" : ""}` },
        h("label", { for: inputs[c].id },
          h("span", { class: "sr-only" }, `${spec.item} ${r + 1} `), column.label), inputs[c]));
      const element = h("li", { class: "rows-row" }, ...cellsOf, remove);
      inputs.forEach(describe);
      if (r === invalidRow) inputs.forEach((input) => input.setAttribute("aria-invalid", "true"));
      return { element, inputs };
    });
    list.replaceChildren(...rows.map((row) => row.element));
    empty.hidden = rows.length > 0;
    add.disabled = rows.length >= spec.max;
    if (focusRow >= 0 && rows[focusRow]) rows[focusRow].inputs[0].focus();
  }

  add.addEventListener("click", () => {
    const next = read();
    next.push(spec.columns.map(() => ""));
    render(next, next.length - 1);
  });

  const field = {
    key, path, element,
    reset(value) {
      saved = value;
      invalidRow = -1;
      render(spec.toRows(absent(value) ? undefined : value));
    },
    change() {
      if (spec.active && !spec.active()) return UNCHANGED;
      const value = spec.fromRows(read());
      if (absent(saved)) return rows.length ? value : UNCHANGED;
      if (same(value, saved)) return UNCHANGED;
      return spec.patchOf ? spec.patchOf(value, saved) : value;
    },
    problem: () => (spec.active && !spec.active() ? null : spec.problem(read())),
    setError(text) {
      error.textContent = text;
      element.setAttribute("aria-describedby", `${hintId} ${error.id}`);
      // "sliders[1].points[2] must ..." (the API) or "Point 3 needs ..." (problem()): that row is
      // the one to fix.
      const api = text.startsWith(`${path}[`) ? Number.parseInt(text.slice(path.length + 1), 10) : NaN;
      const ours = text.startsWith(`${spec.item} `) ? Number.parseInt(text.slice(spec.item.length + 1), 10) - 1 : NaN;
      const named = Number.isInteger(api) ? api : ours;
      invalidRow = Number.isInteger(named) && rows[named] ? named : -1;
      rows.forEach((row, r) => row.inputs.forEach((input) => {
        describe(input);
        if (r === invalidRow) input.setAttribute("aria-invalid", "true");
      }));
    },
    clearError() {
      error.textContent = "";
      invalidRow = -1;
      element.setAttribute("aria-describedby", hintId);
      rows.forEach((row) => row.inputs.forEach((input) => {
        input.removeAttribute("aria-invalid");
        describe(input);
      }));
    },
    focus() {
      const row = rows[invalidRow] || rows[0];
      (row ? row.inputs[0] : add).focus();
    },
    fields: () => [field],
  };
  return field;
}

/** A slider's curve points: 2-16 rows of a slider position and a volume, both 0-100. */
export function pointsField(path, schema, active) {
  const number = { type: "number", min: "0", max: "100", step: "1", inputmode: "numeric" };
  return rowsField(path, schema, {
    item: "Point", add: "Add a point", min: schema.minItems || 2, max: schema.maxItems || 16, active,
    columns: [{ label: "Slider", attrs: number }, { label: "Volume", attrs: number }],
    toRows: (value) => (Array.isArray(value) ? value : [[0, 0], [50, 20], [100, 100]])
      .map((pair) => (Array.isArray(pair) ? pair.map((n) => String(n ?? "")) : ["", ""])),
    fromRows: (rows) => rows.map((cells) => cells.map(Number)),
    problem(rows) {
      const bad = rows.findIndex((cells) => cells.some((cell) => cell === "" || !Number.isFinite(Number(cell))));
      return bad < 0 ? null : `Point ${bad + 1} needs a slider position and a volume, numbers from 0 to 100.`;
    },
  });
}

/** An object whose values are lists of names (app_aliases): a row per key, its names separated
 *  by commas. Saved as a merge patch: a removed row is null, a changed one its new list. */
export function nameListsField(path, schema) {
  const text = { type: "text" };
  const item = /alias/.test(path) ? "Alias" : "Entry";
  return rowsField(path, schema, {
    item, add: item === "Alias" ? "Add an alias" : "Add an entry", min: 0,
    max: schema.maxProperties || 64,
    columns: [{ label: "Application", attrs: text }, { label: "Also matches", attrs: text, wide: true }],
    toRows: (value) => Object.entries(value && typeof value === "object" ? value : {})
      .map(([name, names]) => [name, (Array.isArray(names) ? names : []).join(", ")]),
    fromRows: (rows) => Object.fromEntries(rows.filter((cells) => cells[0] !== "")
      .map(([name, names]) => [name, names.split(",").map((n) => n.trim()).filter(Boolean)])),
    patchOf(value, saved) {
      const patch = {};
      for (const name of Object.keys(saved || {})) if (!(name in value)) patch[name] = null;
      for (const [name, names] of Object.entries(value)) {
        if (!same(names, (saved || {})[name])) patch[name] = names;
      }
      return patch;
    },
    problem(rows) {
      const seen = new Set();
      for (const [r, [name, names]] of rows.entries()) {
        if (name === "" && names === "") continue; // an empty row is left out
        if (name === "" || !names.split(",").some((n) => n.trim())) {
          return `${item} ${r + 1} needs an application name and at least one name it also matches.`;
        }
        if (seen.has(name)) return `${item} ${r + 1} names ${name} a second time.`;
        seen.add(name);
      }
      return null;
    },
  });
}
