// A control with its label, help and error: the one block and aria wiring of every field on the
// settings pages. frame.js builds a setting's on it (label and help from the schema); editors
// whose fields are not settings.json keys (a macro's fields, a profile's name, a password) use
// it with a label and help of their choosing.
import { h } from "../dom.js";

/** Label, control, help and error in one block; keeps aria-describedby and aria-invalid right.
 *  `hint` is text or nodes (none: no help line); `describedBy` names more ids to read first. */
export function labelled(control, labelText, { hint = "", inline = false, describedBy = [] } = {}) {
  const hintId = `${control.id}-hint`;
  const error = h("p", { class: "field-error", id: `${control.id}-error` });
  const describe = (withError) => {
    const ids = [...describedBy, hint ? hintId : null, withError ? error.id : null].filter(Boolean);
    if (ids.length) control.setAttribute("aria-describedby", ids.join(" "));
    else control.removeAttribute("aria-describedby");
  };
  describe(false);
  const label = h("label", { for: control.id }, labelText);
  const help = hint ? h("p", { class: "field-hint", id: hintId }, hint) : null;
  const element = inline
    ? h("div", { class: "field check" }, control, label, help, error)
    : h("div", { class: "field" }, label, control, help, error);
  return {
    element,
    control,
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
    focus: () => control.focus(),
  };
}
