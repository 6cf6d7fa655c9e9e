// The editor of one macro slot (the Macros view, macros-view.js): what it does (the kind and its
// fields, macro-kinds.js), its name and icon on the device; Save, Delete, and Move or Copy to
// another slot. A `command` macro is shown read-only: the API refuses it from the network
// (docs/api.md 2.10), and says so; it may only be deleted here.
import { h } from "../dom.js";
import { KINDS, KIND_TITLES, kindField } from "./macro-kinds.js";
import { labelled } from "./labelled.js";

const PAGE_COUNT = 4;
const SLOT_COUNT = 9;

export function isEmpty(macro) {
  return !macro || !macro.type || macro.type === "none";
}

/**
 * Builds the editor. `actions` are the view's: save(macro), remove(), move(page, index),
 * copy(page, index), each answering a promise; `names` gives page names and slot contents.
 * Answers {element, open(page, index, macro), fieldsFor(type), status, focusHeading()}.
 */
export function buildMacroEditor(actions, names) {
  const heading = h("h3", { id: "settings-macro-editor-heading", tabindex: "-1" }, "");
  const kind = h("select", { id: "settings-macro-type" }, h("option", { value: "" }, "Choose what it does"),
    ...KINDS.map((k) => h("option", { value: k.type }, k.title)));
  const name = h("input", { type: "text", id: "settings-macro-name", autocomplete: "off", maxlength: "64" });
  const icon = h("input", { type: "text", id: "settings-macro-icon", autocomplete: "off", spellcheck: "false",
    maxlength: "64" });
  const kindBox = labelled(kind, "What it does");
  const nameBox = labelled(name, "Name", { hint: "Shown on the device's button (at most 64 bytes)." });
  const iconBox = labelled(icon, "Icon", { hint: "An icon name the device knows, e.g. mic; may stay empty." });
  const common = [
    { path: "type", ...kindBox }, { path: "name", ...nameBox }, { path: "icon", ...iconBox },
  ];
  const kinds = Object.fromEntries(KINDS.map((k) => {
    const fields = k.fields.map((spec) => kindField(spec, k.type));
    return [k.type, { fields, element: h("div", { class: "macro-kind-fields", hidden: true },
      ...fields.map((field) => field.element)) }];
  }));
  const status = h("p", { class: "group-status", id: "settings-macro-status", role: "status" });
  const save = h("button", { type: "submit", class: "primary-button" }, "Save macro");
  const remove = h("button", { type: "button" }, "Delete macro");
  const editable = h("div", { class: "settings-fields" }, kindBox.element, nameBox.element, iconBox.element,
    ...Object.values(kinds).map((k) => k.element));
  const readOnly = h("div", { class: "macro-read-only", hidden: true });
  const form = h("form", { class: "settings-fields", novalidate: true }, editable, readOnly,
    h("div", { class: "group-actions" }, save, remove, status));

  const toPage = h("select", { id: "settings-macro-to-page" });
  const toSlot = h("select", { id: "settings-macro-to-slot" });
  const move = h("button", { type: "button" }, "Move");
  const copy = h("button", { type: "button" }, "Copy");
  const transfer = h("fieldset", { class: "setting-object macro-transfer" },
    h("legend", {}, "Move or copy the saved macro"),
    labelled(toPage, "To page").element, labelled(toSlot, "To slot").element,
    h("div", { class: "group-actions" }, move, copy));
  const element = h("section", { class: "card settings-group macro-editor", hidden: true,
    "aria-labelledby": heading.id }, heading, form, transfer);

  let where = null; // {page, index, macro}
  let pending = ""; // a move or copy over a macro, waiting for the second press

  function showKind() {
    for (const [type, k] of Object.entries(kinds)) k.element.hidden = type !== kind.value;
  }
  kind.addEventListener("change", showKind);

  function fillSlots() {
    const page = Number(toPage.value);
    const keep = toSlot.value;
    toSlot.replaceChildren(...Array.from({ length: SLOT_COUNT }, (_, i) => {
      const there = names.slot(page, i);
      const what = isEmpty(there) ? "empty" : there.name || KIND_TITLES[there.type];
      return h("option", { value: String(i) }, `Slot ${i + 1}: ${what}`);
    }));
    if (keep) toSlot.value = keep;
  }
  toPage.addEventListener("change", () => { pending = ""; fillSlots(); });
  toSlot.addEventListener("change", () => { pending = ""; });

  function allFields() {
    return [...common, ...(kinds[kind.value]?.fields || [])];
  }

  function open(page, index, macro) {
    if (where?.page !== page || where?.index !== index) {
      status.replaceChildren(); // what was said was about another slot
      status.classList.remove("is-error");
    }
    where = { page, index, macro };
    pending = "";
    heading.textContent = `Slot ${index + 1} on ${names.page(page)}`;
    for (const field of [...common, ...Object.values(kinds).flatMap((k) => k.fields)]) field.clearError();
    const command = macro && macro.type === "command";
    editable.hidden = command;
    save.hidden = command;
    transfer.hidden = command || isEmpty(macro);
    remove.hidden = isEmpty(macro);
    readOnly.hidden = !command;
    if (command) {
      readOnly.replaceChildren(
        h("p", {}, h("strong", {}, macro.name || "This macro"), " runs a program: ",
          h("code", {}, (macro.argv || []).join(" "))),
        h("p", { class: "field-hint" }, "A macro that runs a program can only be written into settings.json on "
          + "the machine that runs mixerd: mixerd refuses it from the network, so that no browser can make "
          + "the machine run programs. It can be deleted here."));
    } else {
      kind.value = isEmpty(macro) ? "" : macro.type;
      if (kind.value !== (isEmpty(macro) ? "" : macro.type)) kind.value = ""; // a kind this page lacks
      name.value = macro?.name || "";
      icon.value = macro?.icon || "";
      for (const [type, k] of Object.entries(kinds)) {
        k.fields.forEach((f) => f.show(type === macro?.type ? macro : {}));
      }
      showKind();
    }
    toPage.replaceChildren(...Array.from({ length: PAGE_COUNT },
      (_, p) => h("option", { value: String(p) }, names.page(p))));
    toPage.value = String(page);
    fillSlots();
    element.hidden = false;
  }

  /** Shows the API's 400 next to the field its sentence names. */
  function placeError(message) {
    const missing = /^Missing field: (\S+)/.exec(message);
    const fields = allFields();
    let field = missing ? fields.find((f) => f.path === missing[1]) : null;
    if (!field) {
      const startsItsError = (f) => message.startsWith(f.path) && [" ", ".", "["].includes(message.charAt(f.path.length));
      field = fields.filter(startsItsError)
        .sort((a, b) => b.path.length - a.path.length)[0];
    }
    if (!field) return false;
    field.setError(message);
    field.focus();
    return true;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = allFields();
    fields.forEach((f) => f.clearError());
    if (!kind.value) {
      kindBox.setError("Choose what the macro does.");
      kind.focus();
      return;
    }
    const problems = fields.map((f) => [f, f.problem ? f.problem() : null]).filter(([, p]) => p);
    if (problems.length) {
      problems.forEach(([f, p]) => f.setError(p));
      problems[0][0].focus();
      return;
    }
    const macro = { type: kind.value, name: name.value.trim(), icon: icon.value.trim() };
    kinds[kind.value].fields.forEach((f) => f.read(macro));
    save.disabled = true;
    try {
      await actions.save(where.page, where.index, macro, { placeError });
    } finally {
      save.disabled = false;
    }
  });
  remove.addEventListener("click", () => actions.remove(where.page, where.index));

  function transferTo(verb) {
    const page = Number(toPage.value);
    const index = Number(toSlot.value);
    if (page === where.page && index === where.index) {
      actions.say("Choose another slot: this is the macro's own.", { error: true });
      return;
    }
    const there = names.slot(page, index);
    const key = `${verb}:${page}:${index}`;
    if (!isEmpty(there) && pending !== key) {
      pending = key;
      actions.say(`Slot ${index + 1} on ${names.page(page)} holds ${there.name || KIND_TITLES[there.type]}: `
        + `press ${verb === "move" ? "Move" : "Copy"} again to replace it.`, { error: true });
      return;
    }
    pending = "";
    actions[verb](where.page, where.index, page, index);
  }
  move.addEventListener("click", () => transferTo("move"));
  copy.addEventListener("click", () => transferTo("copy"));

  return {
    element, status, open,
    where: () => where,
    focusHeading: () => heading.focus(),
    close() { element.hidden = true; where = null; },
  };
}
