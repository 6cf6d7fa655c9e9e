// A control with its label, help and error, for editors whose fields are not settings.json keys
// (a macro's fields, a profile's name): the same block and aria wiring as frame.js gives the
// settings' fields, with a label and help text of the editor's choosing.
import { h } from "../dom.js";

/** Label, control, help and error in one block; keeps aria-describedby and aria-invalid right. */
export function labelled(control, labelText, { hint = "", inline = false } = {}) {
  const hintId = `${control.id}-hint`;
  const error = h("p", { class: "field-error", id: `${control.id}-error` });
  const describe = (withError) => {
    const ids = [hint ? hintId : null, withError ? error.id : null].filter(Boolean);
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
