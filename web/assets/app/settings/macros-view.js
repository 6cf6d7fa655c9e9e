// The Macros view: the 4 pages of 9 slots the device's macro buttons run. Choose a page (and
// rename it), choose a slot, and edit it in macro-editor.js. The macro pages are not edited
// through settings.json's generic form but through their own routes (docs/api.md 2.10):
// PUT and DELETE /api/macros/{page}/{index}, PUT /api/macros/pages/{page}; a move is a PUT
// into the new slot and a DELETE of the old one.
import { h } from "../dom.js";
import { api } from "../net.js";
import { SOURCE_HEADER, refusalHint, say } from "./form.js";
import { KIND_TITLES } from "./macro-kinds.js";
import { buildMacroEditor, isEmpty } from "./macro-editor.js";
import { labelled } from "./labelled.js";

const PAGE_COUNT = 4;
const SLOT_COUNT = 9;
const EMPTY = { type: "none", name: "", icon: "" };

/** Builds the Macros view. Answers {element, refresh, show}. */
export function buildMacros(context) {
  let set = null; // the Macro page set (GET /api/macros)
  let page = 0; // the page shown here

  const pageName = (p) => {
    const name = set?.page_names?.[String(p)];
    return typeof name === "string" && name !== "" ? name : `Page ${p + 1}`;
  };
  const slot = (p, i) => {
    const list = set?.pages?.[String(p)];
    return Array.isArray(list) && list[i] ? list[i] : EMPTY;
  };
  const put = (p, i, macro) => {
    set.pages[String(p)] = Array.from({ length: SLOT_COUNT }, (_, j) => slot(p, j));
    set.pages[String(p)][i] = macro;
  };

  const intro = h("p", { class: "hint" }, "The device's 9 macro buttons run the slots of the page it shows. "
    + "Choose a page and a slot to create, change, move, copy or delete a macro.");
  const pageButtons = Array.from({ length: PAGE_COUNT }, (_, p) => {
    const button = h("button", { type: "button", class: "page-choice", "aria-pressed": "false" }, "");
    button.addEventListener("click", () => { page = p; editor.close(); render(); });
    return button;
  });
  const pageName_ = h("input", { type: "text", id: "settings-macro-page-name", autocomplete: "off",
    maxlength: "32" });
  const nameBox = labelled(pageName_, "Page name", { hint: "1 to 32 characters; the device shows it." });
  const renameStatus = h("p", { class: "group-status", id: "settings-macro-page-status", role: "status" });
  const rename = h("button", { type: "submit", class: "primary-button" }, "Rename page");
  const renameForm = h("form", { class: "settings-fields", novalidate: true }, nameBox.element,
    h("div", { class: "group-actions" }, rename, renameStatus));
  const pagesCard = h("section", { class: "card settings-group", "aria-labelledby": "settings-macro-pages" },
    h("h3", { id: "settings-macro-pages" }, "Pages"),
    h("div", { class: "page-choices", role: "group", "aria-label": "Page to edit" }, ...pageButtons), renameForm);
  const grid = h("div", { class: "macro-slots" });
  const slotsHeading = h("h3", { id: "settings-macro-slots" }, "");
  const slotsCard = h("section", { class: "card settings-group", "aria-labelledby": "settings-macro-slots" },
    slotsHeading, grid);
  const profiles = h("datalist", { id: "settings-macro-profiles" });
  const entities = h("datalist", { id: "settings-macro-entities" });

  const editor = buildMacroEditor({
    say: (text, options) => say(editor.status, text, options),
    save: saveMacro, remove: removeMacro,
    move: (...a) => transfer("move", ...a), copy: (...a) => transfer("copy", ...a),
  }, { page: pageName, slot });

  function slotButton(i) {
    const macro = slot(page, i);
    const chosen = editor.where()?.page === page && editor.where()?.index === i;
    const name = isEmpty(macro) ? "Empty" : macro.name || "(no name)";
    const kind = isEmpty(macro) ? "" : KIND_TITLES[macro.type] || macro.type;
    // The name is "Slot 3 Lamp" (the parts are blocks, so a space comes between them); the kind
    // is its description.
    const button = h("button", { type: "button", class: `macro-slot${isEmpty(macro) ? " empty" : ""}`,
      id: `settings-macro-slot-${i}`, "aria-pressed": chosen ? "true" : "false",
      "aria-describedby": kind ? `settings-macro-slot-${i}-kind` : null },
    h("span", { class: "slot-number" }, `Slot ${i + 1}`), h("span", { class: "slot-name" }, name),
    kind ? h("span", { class: "slot-kind", id: `settings-macro-slot-${i}-kind`, "aria-hidden": "true" }, kind)
      : null);
    button.addEventListener("click", () => {
      editor.open(page, i, slot(page, i));
      render();
      editor.focusHeading();
    });
    return button;
  }

  function render() {
    if (!set) return;
    pageButtons.forEach((button, p) => {
      button.textContent = pageName(p);
      button.setAttribute("aria-pressed", p === page ? "true" : "false");
    });
    if (document.activeElement !== pageName_) pageName_.value = pageName(page);
    slotsHeading.textContent = `Slots of ${pageName(page)}`;
    grid.replaceChildren(...Array.from({ length: SLOT_COUNT }, (_, i) => slotButton(i)));
  }

  function focusSlot(i) {
    document.getElementById(`settings-macro-slot-${i}`)?.focus();
  }

  function failed(failure, { placeError } = {}) {
    if (failure.status === 400 && placeError && placeError(failure.message)) {
      say(editor.status, "Not saved: a value was refused.", { error: true });
      return;
    }
    // A 403 about who may store an http macro has a way out (login); one about a command has not.
    const who = failure.status === 403 && !/command macro/.test(failure.message);
    say(editor.status, `Not saved: ${failure.message}`,
      { error: true, hint: who ? refusalHint(context.authEnabled) : "" });
  }

  async function saveMacro(p, i, macro, { placeError }) {
    try {
      const answer = await api("PUT", `/api/macros/${p}/${i}`, macro, { quiet: true, headers: SOURCE_HEADER });
      put(p, i, answer.macro || macro);
      editor.open(p, i, slot(p, i));
      render();
      say(editor.status, `Saved: ${slot(p, i).name || "the macro"} is in slot ${i + 1} of ${pageName(p)}.`);
    } catch (failure) {
      failed(failure, { placeError });
    }
  }

  async function removeMacro(p, i) {
    try {
      await api("DELETE", `/api/macros/${p}/${i}`, undefined, { quiet: true, headers: SOURCE_HEADER });
      put(p, i, EMPTY);
      editor.open(p, i, EMPTY);
      render();
      say(editor.status, `Slot ${i + 1} of ${pageName(p)} is empty now.`);
      focusSlot(i); // the Delete button is hidden now: the focus goes to the emptied slot
    } catch (failure) {
      failed(failure);
    }
  }

  async function transfer(verb, fromPage, fromIndex, toPage, toIndex) {
    const macro = slot(fromPage, fromIndex);
    try {
      const answer = await api("PUT", `/api/macros/${toPage}/${toIndex}`, macro,
        { quiet: true, headers: SOURCE_HEADER });
      put(toPage, toIndex, answer.macro || macro);
      if (verb === "move") {
        await api("DELETE", `/api/macros/${fromPage}/${fromIndex}`, undefined,
          { quiet: true, headers: SOURCE_HEADER });
        put(fromPage, fromIndex, EMPTY);
        page = toPage; // follow the macro to its new slot
        editor.open(toPage, toIndex, slot(toPage, toIndex));
      } else {
        editor.open(fromPage, fromIndex, slot(fromPage, fromIndex));
      }
      render();
      const done = verb === "move" ? "Moved" : "Copied";
      say(editor.status, `${done} ${macro.name || "the macro"} to slot ${toIndex + 1} of ${pageName(toPage)}.`);
      if (verb === "move") focusSlot(toIndex);
    } catch (failure) {
      failed(failure);
    }
  }

  renameForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    nameBox.clearError();
    say(renameStatus, "");
    const p = page;
    rename.disabled = true;
    try {
      const answer = await api("PUT", `/api/macros/pages/${p}`, { name: pageName_.value.trim() },
        { quiet: true, headers: SOURCE_HEADER });
      set.page_names = { ...set.page_names, [String(p)]: answer.name };
      render();
      say(renameStatus, `Page ${p + 1} is called ${answer.name} now.`);
    } catch (failure) {
      if (failure.status === 400 && failure.message.startsWith("name ")) {
        nameBox.setError(failure.message);
        nameBox.focus();
        say(renameStatus, "Not renamed: the name was refused.", { error: true });
      } else {
        say(renameStatus, `Not renamed: ${failure.message}`, { error: true });
      }
    } finally {
      rename.disabled = false;
    }
  });

  /** Names for the editor's suggestions: the profiles, and the smart home's devices if connected. */
  async function readSuggestions() {
    const [listing, home] = await Promise.all([
      api("GET", "/api/profiles", undefined, { quiet: true }).catch(() => null),
      api("GET", "/api/smarthome", undefined, { quiet: true }).catch(() => null)]);
    profiles.replaceChildren(...(listing?.profiles || []).map((p) => h("option", { value: p.name })));
    entities.replaceChildren(...(home?.devices || [])
      .map((d) => h("option", { value: d.entity_id }, d.friendly_name)));
  }

  const status = h("p", { class: "hint" }, "Loading the macros…");
  const element = h("div", { class: "settings-macros" }, intro, status, pagesCard, slotsCard, editor.element,
    profiles, entities);
  pagesCard.hidden = true;
  slotsCard.hidden = true;

  async function refresh() {
    try {
      set = await api("GET", "/api/macros", undefined, { quiet: true });
    } catch (failure) {
      status.textContent = `The macros could not be read: ${failure.message}`;
      return;
    }
    status.hidden = true;
    pagesCard.hidden = false;
    slotsCard.hidden = false;
    const where = editor.where();
    if (where) editor.open(where.page, where.index, slot(where.page, where.index));
    render();
    readSuggestions();
  }

  return { element, refresh, show: () => refresh() };
}
