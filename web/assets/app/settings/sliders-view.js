// The Sliders view: each of the four sliders' label, what it controls (slider-assignment.js) and
// every other setting the schema declares for a slider (enforce_volume, the curve with its points,
// min and max); the slider's live value is left to the live page. A slider is saved with PATCH
// /api/settings {"sliders": [...]}: one change holds label, assignment and settings together, is
// applied live as a reload applies it (the device gets the label) and the history says "web".
// A merge patch replaces a whole array, so the save reads the running sliders first and changes
// only the one being saved.
import { h } from "../dom.js";
import { api } from "../net.js";
import { UNCHANGED, idOf } from "./frame.js";
import { fieldFor } from "./fields.js";
import { SOURCE_HEADER, fieldNamedBy, refusalHint, say } from "./form.js";
import { pointsField } from "./rows.js";
import { assignmentField } from "./slider-assignment.js";

const SLIDER_COUNT = 4;
// Help for the per-slider settings the schema describes without words of its own.
const HINTS = {
  label: "Shown on the device and on the page (at most 64 bytes)",
  enforce_volume: "For applications: one that changes its own volume or mute is set back to the slider's",
  curve: "How the slider's position becomes a volume: linear, fine (more steps at low volume) or "
    + "your own points",
  points: "Each point turns a slider position into a volume, both 0-100, with straight lines between "
    + "them; the slider positions rise from point to point (2 to 16 points)",
  min: "The volume at the bottom of the slider, 0-100",
  max: "The volume at the top of the slider, 0-100",
};
// Labels of the per-slider settings whose keys say too little, and the curve's choices in words.
const TITLES = { curve: "Curve", points: "Curve points", min: "Lowest volume", max: "Highest volume" };
const ORDER = ["label", "enforce_volume", "curve", "points", "min", "max"];
const CURVES = { linear: "Linear", fine: "Fine (more steps at low volume)", points: "My own points" };

function sliderItems(settings) {
  const list = Array.isArray(settings && settings.sliders) ? settings.sliders : [];
  return Array.from({ length: SLIDER_COUNT }, (_, i) => (list[i] && typeof list[i] === "object" ? list[i] : {}));
}

function sliderCard(index, itemSchema, context, save) {
  const headingId = `settings-slider-${index}`;
  const props = itemSchema?.properties || {};
  const curve = () => card.curveSelect?.value === "points";
  const plain = Object.entries(props)
    .filter(([key, member]) => key !== "assignment" && key !== "value" && !member["x-live"])
    .map(([key, member]) => {
      const described = { ...member, description: member.description || HINTS[key], title: member.title || TITLES[key] };
      if (key === "label") described.default = `Slider ${index + 1}`;
      const path = `sliders[${index}].${key}`;
      return key === "points" ? pointsField(path, described, curve) : fieldFor(path, described);
    });
  // The label first, then what it controls, then the rest: those known in ORDER (the schema's
  // members come in alphabetical order), then any others in the schema's order.
  const rank = (field) => (ORDER.includes(field.key) ? ORDER.indexOf(field.key) : ORDER.length);
  plain.sort((a, b) => rank(a) - rank(b));
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
    index, element, status, button, assignment, plain, saved: {}, curveSelect: null,
    all: () => [...plain.flatMap((field) => field.fields()), ...assignment.fields()],
    dirty: () => assignment.dirty() || plain.some((field) => field.change() !== UNCHANGED),
    reset(item, { keepEdits = false } = {}) {
      if (keepEdits && card.dirty()) return;
      card.saved = item;
      for (const field of plain) field.reset(item[field.key]);
      assignment.reset(item.assignment);
      card.showPoints();
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
  // The points apply, and are shown, only with the curve "points".
  const curveField = plain.find((field) => field.key === "curve");
  const points = plain.find((field) => field.key === "points");
  card.curveSelect = curveField ? curveField.element.querySelector("select") : null;
  if (card.curveSelect) {
    for (const option of card.curveSelect.options) {
      if (CURVES[option.value]) option.textContent = CURVES[option.value];
      else if (option.value === "") option.textContent = `Default (${CURVES[props.curve?.default] || "Linear"})`;
    }
  }
  card.showPoints = () => {
    if (points) points.element.hidden = !curve();
  };
  card.curveSelect?.addEventListener("change", card.showPoints);
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
    const problems = card.plain.map((field) => [field, field.problem()]).filter(([, text]) => text);
    if (problems.length) {
      problems.forEach(([field, text]) => field.setError(text));
      problems[0][0].focus();
      say(card.status, "Not saved: a value is not right.", { error: true });
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
