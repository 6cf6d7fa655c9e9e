// What a slider controls, in the Sliders view: the "Controls" menu (nothing, the system targets,
// the applications playing now, applications by name, everything else) with the application
// names of an `app` assignment or the names an `unmapped` one leaves alone. One field with the
// assignment's key path, so the API's sentence about it lands here.
import { h } from "../dom.js";
import { idOf } from "./frame.js";
import { labelled } from "./labelled.js";

const FALLBACK_SYSTEM = { system_default_output: "System output", system_default_input: "Microphone" };
const FALLBACK_TYPES = ["unassigned", "system_default_output", "system_default_input", "app", "unmapped"];

function namesOf(text) {
  return text.split(",").map((name) => name.trim()).filter(Boolean);
}

/** The assignment as this view compares it: only what it edits, lists always present. */
function normal(assignment) {
  if (assignment.type === "app") return { type: "app", names: assignment.names || [] };
  if (assignment.type === "unmapped") return { type: "unmapped", exclude: assignment.exclude || [] };
  return { type: assignment.type };
}

export function assignmentField(index, schema) {
  const path = `sliders[${index}].assignment`;
  const listed = schema?.properties?.type?.enum || FALLBACK_TYPES;
  // "Everything else" is offered even when the schema's list predates it.
  const types = listed.includes("unmapped") ? listed : [...listed, "unmapped"];
  const select = h("select", { id: idOf(path) });
  const names = h("input", { type: "text", id: idOf(`${path}.names`), autocomplete: "off", spellcheck: "false" });
  const exclude = h("input", { type: "text", id: idOf(`${path}.exclude`), autocomplete: "off", spellcheck: "false" });
  const choice = labelled(select, "Controls", {
    hint: "The system's output or input, applications by name, or every application no other slider controls.",
  });
  const namesBox = labelled(names, "Application names", {
    hint: "Separate several names with commas (e.g. spotify, vlc); upper and lower case do not matter.",
  });
  const excludeBox = labelled(exclude, "Except these applications", {
    hint: "Applications this slider leaves alone, separated by commas (e.g. spotify, obs); may be empty.",
  });
  let saved = { type: "unassigned" };
  let sessions = [];
  const systemNames = { ...FALLBACK_SYSTEM };

  function fill() {
    const keep = select.value;
    const system = types.filter((type) => !["app", "unassigned", "unmapped"].includes(type));
    select.replaceChildren(
      types.includes("unassigned") ? h("option", { value: "unassigned" }, "Nothing") : null,
      ...system.map((type) => h("option", { value: type }, systemNames[type] || type.replace(/_/g, " "))),
      sessions.length ? h("optgroup", { label: "Playing now" },
        ...sessions.map((s) => h("option", { value: `app:${s.name}` }, s.displayName || s.name))) : null,
      h("option", { value: "app" }, "Applications by name"),
      h("option", { value: "unmapped" }, "Everything else"));
    if (keep) select.value = keep;
  }
  const isApp = () => select.value === "app" || select.value.startsWith("app:");
  function showNames() {
    namesBox.element.hidden = !isApp();
    excludeBox.element.hidden = select.value !== "unmapped";
  }
  select.addEventListener("change", () => {
    if (select.value.startsWith("app:")) names.value = select.value.slice(4);
    showNames();
  });
  names.addEventListener("input", () => {
    if (select.value.startsWith("app:")) select.value = "app"; // typed names are "by name"
  });
  function value() {
    if (isApp()) return { type: "app", names: namesOf(names.value) };
    if (select.value === "unmapped") {
      const list = namesOf(exclude.value);
      return list.length ? { type: "unmapped", exclude: list } : { type: "unmapped" };
    }
    return { type: select.value };
  }
  const same = (a, b) => JSON.stringify(normal(a)) === JSON.stringify(normal(b));
  const field = {
    path, element: h("div", { class: "assignment-fields" }, choice.element, namesBox.element, excludeBox.element),
    setOptions(list, system) {
      sessions = list;
      for (const option of system) systemNames[option.name] = option.displayName || option.name;
      fill();
      field.reset(saved, { keepEdit: true });
    },
    reset(assignment, { keepEdit = false } = {}) {
      const edited = keepEdit && field.dirty();
      saved = assignment && typeof assignment.type === "string" ? assignment : { type: "unassigned" };
      if (edited) return;
      fill();
      const list = saved.type === "app" && Array.isArray(saved.names) ? saved.names : [];
      names.value = list.join(", ");
      exclude.value = saved.type === "unmapped" && Array.isArray(saved.exclude) ? saved.exclude.join(", ") : "";
      const playing = list.length === 1 && sessions.some((s) => s.name === list[0]);
      if (saved.type === "app") select.value = playing ? `app:${list[0]}` : "app";
      else {
        if (![...select.options].some((o) => o.value === saved.type)) {
          select.append(h("option", { value: saved.type }, saved.type)); // a type this page lacks
        }
        select.value = saved.type;
      }
      showNames();
    },
    value,
    dirty: () => !same(value(), saved),
    problem: () => (value().type === "app" && !value().names.length
      ? "Type at least one application name." : null),
    fields: () => [
      { path, setError: choice.setError, clearError: choice.clearError, focus: choice.focus },
      { path: `${path}.names`, setError: namesBox.setError, clearError: namesBox.clearError,
        focus: namesBox.focus },
      { path: `${path}.exclude`, setError: excludeBox.setError, clearError: excludeBox.clearError,
        focus: excludeBox.focus },
    ],
    namesField: namesBox,
  };
  return field;
}
