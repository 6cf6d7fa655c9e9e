// The Sliders view: each of the four sliders' label, what it controls and every other setting the
// schema declares for a slider (enforce_volume today). A slider is saved with PATCH
// /api/settings {"sliders": [...]}: one change holds label, assignment and settings together, is
// applied live as a reload applies it (the device gets the label) and the history says "web".
// A merge patch replaces a whole array, so the save reads the running sliders first and changes
// only the one being saved.
import { h } from "../dom.js";
import { api } from "../net.js";
import { UNCHANGED, idOf } from "./frame.js";
import { fieldFor } from "./fields.js";
import { SOURCE_HEADER, fieldNamedBy, refusalHint, say } from "./form.js";
import { labelled } from "./labelled.js";

const SLIDER_COUNT = 4;
const FALLBACK_SYSTEM = { system_default_output: "System output", system_default_input: "Microphone" };
// Help for the per-slider settings the schema describes without words of its own.
const HINTS = {
  label: "Shown on the device and on the page (at most 64 bytes)",
  enforce_volume: "For applications: one that changes its own volume or mute is set back to the slider's",
};

function sliderItems(settings) {
  const list = Array.isArray(settings && settings.sliders) ? settings.sliders : [];
  return Array.from({ length: SLIDER_COUNT }, (_, i) => (list[i] && typeof list[i] === "object" ? list[i] : {}));
}

function namesOf(text) {
  return text.split(",").map((name) => name.trim()).filter(Boolean);
}

/** The "Controls" menu and the application names: one field with the assignment's path. */
function assignmentField(index, schema) {
  const path = `sliders[${index}].assignment`;
  const types = schema?.properties?.type?.enum
    || ["unassigned", "system_default_output", "system_default_input", "app"];
  const select = h("select", { id: idOf(path) });
  const names = h("input", { type: "text", id: idOf(`${path}.names`), autocomplete: "off", spellcheck: "false" });
  const choice = labelled(select, "Controls", { hint: "The system's output or input, or applications by name." });
  const namesBox = labelled(names, "Application names", {
    hint: "Separate several names with commas (e.g. spotify, vlc); upper and lower case do not matter.",
  });
  let saved = { type: "unassigned" };
  let sessions = [];
  let systemNames = { ...FALLBACK_SYSTEM };

  function fill() {
    const keep = select.value;
    const system = types.filter((type) => type !== "app" && type !== "unassigned");
    select.replaceChildren(
      types.includes("unassigned") ? h("option", { value: "unassigned" }, "Nothing") : null,
      ...system.map((type) => h("option", { value: type }, systemNames[type] || type.replace(/_/g, " "))),
      sessions.length ? h("optgroup", { label: "Playing now" },
        ...sessions.map((s) => h("option", { value: `app:${s.name}` }, s.displayName || s.name))) : null,
      h("option", { value: "app" }, "Applications by name"));
    if (keep) select.value = keep;
  }
  function showNames() {
    namesBox.element.hidden = !(select.value === "app" || select.value.startsWith("app:"));
  }
  select.addEventListener("change", () => {
    if (select.value.startsWith("app:")) names.value = select.value.slice(4);
    showNames();
  });
  names.addEventListener("input", () => {
    if (select.value.startsWith("app:")) select.value = "app"; // typed names are "by name"
  });
  function value() {
    const app = select.value === "app" || select.value.startsWith("app:");
    if (app) return { type: "app", names: namesOf(names.value) };
    return { type: select.value };
  }
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const field = {
    path, element: h("div", { class: "assignment-fields" }, choice.element, namesBox.element),
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
    dirty: () => !same(value(), saved.type === "app" ? { type: "app", names: saved.names || [] }
      : { type: saved.type }),
    problem: () => (value().type === "app" && !value().names.length
      ? "Type at least one application name." : null),
    fields: () => [
      { path, setError: choice.setError, clearError: choice.clearError, focus: choice.focus },
      { path: `${path}.names`, setError: namesBox.setError, clearError: namesBox.clearError,
        focus: namesBox.focus },
    ],
    namesField: namesBox,
  };
  return field;
}

function sliderCard(index, itemSchema, context, save) {
  const headingId = `settings-slider-${index}`;
  const props = itemSchema?.properties || {};
  const plain = Object.entries(props).filter(([key]) => key !== "assignment").map(([key, member]) => {
    const described = { ...member, description: member.description || HINTS[key] };
    if (key === "label") described.default = `Slider ${index + 1}`;
    return fieldFor(`sliders[${index}].${key}`, described);
  });
  // The label first, then what it controls, then the rest in the schema's order.
  plain.sort((a, b) => (b.key === "label") - (a.key === "label"));
  const assignment = assignmentField(index, props.assignment);
  const status = h("p", { class: "group-status", id: `${headingId}-status`, role: "status" });
  const button = h("button", { type: "submit", class: "primary-button" },
    "Save", h("span", { class: "sr-only" }, ` slider ${index + 1}`));
  const [label, ...rest] = plain;
  const form = h("form", { class: "settings-fields", novalidate: true },
    label ? label.element : null, assignment.element, ...rest.map((field) => field.element),
    h("div", { class: "group-actions" }, button, status));
  const element = h("section", { class: "card settings-group", "aria-labelledby": headingId },
    h("h3", { id: headingId }, `Slider ${index + 1}`), form);
  const card = {
    index, element, status, button, assignment, plain, saved: {},
    all: () => [...plain.flatMap((field) => field.fields()), ...assignment.fields()],
    dirty: () => assignment.dirty() || plain.some((field) => field.change() !== UNCHANGED),
    reset(item, { keepEdits = false } = {}) {
      if (keepEdits && card.dirty()) return;
      card.saved = item;
      for (const field of plain) field.reset(item[field.key]);
      assignment.reset(item.assignment);
    },
    item() {
      const item = { ...card.saved }; // keeps what this page does not know about
      for (const field of plain) {
        const change = field.change();
        if (change === null) delete item[field.key];
        else if (change !== UNCHANGED) item[field.key] = change;
      }
      item.assignment = assignment.value();
      return item;
    },
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    save(card);
  });
  return card;
}

/** Builds the Sliders view. Answers {element, refresh, show, saved}. */
export function buildSliders(context) {
  const itemSchema = context.schema?.properties?.sliders?.items;
  let cards = [];

  async function save(card) {
    const all = card.all();
    all.forEach((field) => field.clearError());
    say(card.status, "");
    const problem = card.assignment.problem();
    if (problem) {
      card.assignment.namesField.setError(problem);
      card.assignment.namesField.focus();
      return;
    }
    card.button.disabled = true;
    try {
      // The array as it runs now (another page may have changed a slider), with this one changed.
      const running = await api("GET", "/api/settings", undefined, { quiet: true });
      const items = sliderItems(running);
      items[card.index] = card.item();
      const answer = await api("PATCH", "/api/settings", { sliders: items },
        { quiet: true, headers: SOURCE_HEADER });
      const settings = answer.settings || {};
      card.reset(sliderItems(settings)[card.index]);
      context.onSaved(settings);
      say(card.status, `Slider ${card.index + 1} saved: the device shows ${sliderLabel(settings, card.index)}.`);
    } catch (failure) {
      const named = failure.status === 400 ? fieldNamedBy(failure.message, all) : null;
      if (named) {
        named.setError(failure.message);
        named.focus();
        say(card.status, "Not saved: a value was refused.", { error: true });
      } else {
        say(card.status, `Not saved: ${failure.message}`,
          { error: true, hint: failure.status === 403 ? refusalHint(context.authEnabled) : "" });
      }
    } finally {
      card.button.disabled = false;
    }
  }

  function sliderLabel(settings, index) {
    const label = sliderItems(settings)[index].label;
    return typeof label === "string" && label !== "" ? label : `Slider ${index + 1}`;
  }

  function show(settings, { keepEdits = false } = {}) {
    sliderItems(settings).forEach((item, index) => cards[index].reset(item, { keepEdits }));
  }

  /** The applications playing now and the system targets, for every card's menu. */
  async function readSessions() {
    const listing = await api("GET", "/api/audio/sessions", undefined, { quiet: true }).catch(() => null);
    const sessions = listing && Array.isArray(listing.sessions) ? listing.sessions : [];
    const system = listing && Array.isArray(listing.systemOptions) ? listing.systemOptions : [];
    for (const card of cards) card.assignment.setOptions(sessions, system);
  }

  cards = Array.from({ length: SLIDER_COUNT }, (_, index) => sliderCard(index, itemSchema, context, save));
  show(context.settings);
  const element = h("div", { class: "settings-sliders" },
    h("p", { class: "hint" }, "Name each slider and choose what it controls. A saved change applies at once: "
      + "the device shows the new label."),
    h("div", { class: "settings-groups" }, ...cards.map((card) => card.element)));

  return {
    element,
    async refresh() {
      await readSessions();
      const settings = await api("GET", "/api/settings", undefined, { quiet: true }).catch(() => null);
      if (settings) show(settings, { keepEdits: true });
    },
    show: (settings) => show(settings),
    saved: (settings) => show(settings, { keepEdits: true }),
  };
}
