// A secret (a value the schema marks writeOnly): the API never sends its text, only whether it is
// set ("********") or not (""). So the field shows that state in words, and offers an empty
// password box to replace it and a Clear button to remove it. Nothing here ever holds the old
// value, so the page cannot show or leak it.
import { h } from "../dom.js";
import { UNCHANGED, frame, hintOf, idOf, labelOf } from "./frame.js";

// Secrets the API stores as given but that must be made by mixerd itself: the password hash is
// written by `mixerd set-password`; typing a password here would store it as the "hash".
const MADE_BY_MIXERD = new Set(["auth_password_hash"]);

function isSet(value) {
  return typeof value === "string" && value !== "";
}

/** auth_password_hash and its kind: the state only, and where to change it. */
function stateOnly(path, schema) {
  const id = idOf(path);
  const state = h("p", { class: "secret-state", id: `${id}-state` });
  const error = h("p", { class: "field-error" });
  const element = h("div", { class: "field", role: "group", "aria-labelledby": `${id}-label` },
    h("p", { class: "field-label", id: `${id}-label` }, labelOf(path.split(".").pop())), state,
    h("p", { class: "field-hint" }, "Set or changed in Security (the current password is asked "
      + "for), or on the machine that runs mixerd with ",
      h("code", {}, "mixerd set-password USERNAME"), ". ", hintOf(path, schema)), error);
  const field = {
    key: path.split(".").pop(), path, element,
    reset(value) {
      state.textContent = isSet(value) ? "Set" : "Not set";
      state.dataset.state = isSet(value) ? "set" : "unset";
    },
    change: () => UNCHANGED,
    problem: () => null,
    setError(text) { error.textContent = text; },
    clearError() { error.textContent = ""; },
    focus() {},
    fields: () => [field],
  };
  return field;
}

export function secretField(path, schema) {
  if (MADE_BY_MIXERD.has(path)) return stateOnly(path, schema);
  const id = idOf(path);
  const label = labelOf(path.split(".").pop());
  const control = h("input", {
    type: "password", id, autocomplete: "new-password", spellcheck: "false", class: "secret-input",
  });
  const state = h("p", { class: "secret-state", id: `${id}-state` });
  const clear = h("button", { type: "button", class: "secret-clear", "aria-pressed": "false" },
    "Clear", h("span", { class: "sr-only" }, ` ${label}`));
  const framed = frame(path, schema, control, { describedBy: [state.id] });
  framed.element.classList.add("secret");
  framed.element.querySelector("label").after(state);
  control.after(clear);

  let saved = false; // whether the running settings hold this secret
  let clearing = false; // Clear is pressed: the save removes it

  const show = () => {
    state.textContent = !saved ? "Not set" : clearing ? "Set; it is cleared when you save" : "Set";
    state.dataset.state = saved && !clearing ? "set" : "unset";
    control.placeholder = saved ? "Type a new value to replace it" : "Type a value to set it";
    clear.disabled = !saved;
    clear.setAttribute("aria-pressed", clearing ? "true" : "false");
  };
  clear.addEventListener("click", () => {
    clearing = !clearing;
    if (clearing) control.value = "";
    show();
  });
  control.addEventListener("input", () => {
    if (control.value !== "" && clearing) {
      clearing = false;
      show();
    }
  });

  const field = {
    key: path.split(".").pop(), path, element: framed.element,
    reset(value) {
      saved = isSet(value);
      clearing = false;
      control.value = "";
      show();
    },
    change() {
      if (control.value !== "") return control.value;
      return clearing ? null : UNCHANGED;
    },
    problem: () => null,
    setError: framed.setError,
    clearError: framed.clearError,
    focus: () => control.focus(),
    fields: () => [field],
  };
  return field;
}
