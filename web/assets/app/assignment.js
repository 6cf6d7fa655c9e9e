// The assignment editor: a dialog that sets what a slider controls (and its label). The choices
// are the system targets and the applications playing now (GET /api/audio/sessions), any
// application names typed by hand, and "everything else" (every application no other slider
// controls, but for the names it excludes). The change comes back to every client as assignment_change.
import { h, announce } from "./dom.js";
import { api, tryApi } from "./net.js";

const FALLBACK_SYSTEM_OPTIONS = [
  { name: "system_default_output", displayName: "System output" },
  { name: "system_default_input", displayName: "Microphone" },
];

function field(labelText, control, hint) {
  const hintId = hint ? `${control.id}-hint` : null;
  if (hintId) control.setAttribute("aria-describedby", hintId);
  return h("div", { class: "field" }, h("label", { for: control.id }, labelText), control,
    hint ? h("p", { class: "field-hint", id: hintId }, hint) : null);
}

/** The value of the "Controls" select for an assignment. */
function choiceOf(assignment, sessions) {
  if (!assignment || assignment.type === "unassigned") return "unassigned";
  if (assignment.type !== "app") return assignment.type; // a system target or "unmapped"
  const names = assignment.names || [];
  const session = sessions.find((s) => names.length === 1 && names[0] === s.name);
  return session ? `app:${session.name}` : "app-other";
}

/** Opens the editor for slider `index` (1-4); focus returns to `opener` when it closes. */
export async function openAssignmentEditor(index, slider, opener) {
  const dialog = document.getElementById("assignment-dialog");
  const listing = await tryApi("GET", "/api/audio/sessions");
  const sessions = listing && Array.isArray(listing.sessions) ? listing.sessions : [];
  const systemOptions = listing && Array.isArray(listing.systemOptions) && listing.systemOptions.length
    ? listing.systemOptions : FALLBACK_SYSTEM_OPTIONS;

  const label = h("input", {
    id: "assignment-label", type: "text", maxlength: "64", autocomplete: "off",
    value: slider.label || `Slider ${index}`,
  });
  const choice = h("select", { id: "assignment-choice" },
    h("option", { value: "unassigned" }, "Nothing"),
    ...systemOptions.map((option) => h("option", { value: option.name }, option.displayName)),
    sessions.length ? h("optgroup", { label: "Playing now" },
      ...sessions.map((s) => h("option", { value: `app:${s.name}` }, s.displayName || s.name))) : null,
    h("option", { value: "app-other" }, "Other applications…"),
    h("option", { value: "unmapped" }, "Everything else"));
  const names = h("input", {
    id: "assignment-names", type: "text", autocomplete: "off", spellcheck: "false",
    value: slider.assignment && slider.assignment.type === "app" ? (slider.assignment.names || []).join(", ") : "",
  });
  const namesField = field("Application names", names, "Separate several names with commas, e.g. spotify, Spotify.");
  const unmapped = slider.assignment && slider.assignment.type === "unmapped";
  const exclude = h("input", {
    id: "assignment-exclude", type: "text", autocomplete: "off", spellcheck: "false",
    value: unmapped ? (slider.assignment.exclude || []).join(", ") : "",
  });
  const excludeField = field("Except these applications", exclude,
    "Every application no other slider controls, but these (separated by commas; may be empty).");
  const enforce = h("input", { id: "assignment-enforce", type: "checkbox" });
  enforce.checked = slider.enforce_volume !== false;
  const enforceField = h("div", { class: "field check" }, enforce,
    h("label", { for: "assignment-enforce" }, "Keep the applications at the slider's volume"));
  const error = h("p", { class: "field-error", role: "alert" });

  choice.value = choiceOf(slider.assignment, sessions);
  const showNames = () => {
    const isOther = choice.value === "app-other";
    namesField.hidden = !isOther;
    excludeField.hidden = choice.value !== "unmapped";
    enforceField.hidden = !(isOther || choice.value === "unmapped" || choice.value.startsWith("app:"));
  };
  choice.addEventListener("change", showNames);
  showNames();

  const cancel = h("button", { type: "button", class: "quiet-button" }, "Cancel");
  const save = h("button", { type: "submit", class: "primary-button" }, "Save");
  const form = h("form", { class: "dialog-form", method: "dialog", novalidate: true },
    h("h2", { id: "assignment-title" }, `What ${slider.label || `slider ${index}`} controls`),
    field("Label", label, "Shown on the device and here (at most 64 bytes)."),
    field("Controls", choice), namesField, excludeField, enforceField, error,
    h("div", { class: "dialog-buttons" }, cancel, save));

  cancel.addEventListener("click", () => dialog.close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { label: label.value.trim() || `Slider ${index}` };
    if (choice.value.startsWith("app:")) {
      Object.assign(body, { type: "app", names: [choice.value.slice(4)], enforce_volume: enforce.checked });
    } else if (choice.value === "app-other") {
      const list = names.value.split(",").map((name) => name.trim()).filter(Boolean);
      if (!list.length) {
        error.textContent = "Type at least one application name.";
        names.focus();
        return;
      }
      Object.assign(body, { type: "app", names: list, enforce_volume: enforce.checked });
    } else if (choice.value === "unmapped") {
      const list = exclude.value.split(",").map((name) => name.trim()).filter(Boolean);
      Object.assign(body, { type: "unmapped", exclude: list, enforce_volume: enforce.checked });
    } else {
      body.type = choice.value;
    }
    save.disabled = true;
    try {
      await api("POST", `/api/sliders/${index}/assignment`, body, { quiet: true });
    } catch (failure) {
      error.textContent = failure.message;
      return;
    } finally {
      save.disabled = false;
    }
    dialog.close();
    announce(`${body.label} saved.`);
  });

  dialog.replaceChildren(form);
  dialog.addEventListener("close", () => opener && opener.focus(), { once: true });
  dialog.showModal();
  label.focus();
}
