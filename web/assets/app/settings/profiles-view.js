// The Profiles view (docs/api.md 2.11): save the current state as a new profile, load one,
// rename it or change its icon, delete it (after a confirmation). The API has one way to
// rename or re-icon a profile, PUT /api/profiles/{name}, and it also stores the current state
// in the profile: the editor says so before anyone saves. A load changes the sliders and the
// macros, so the other views are told (onChanged) with the settings read afresh.
import { h } from "../dom.js";
import { api } from "../net.js";
import { SOURCE_HEADER, say } from "./form.js";
import { labelled } from "./labelled.js";

const path = (name) => `/api/profiles/${encodeURIComponent(name)}`;

function nameAndIcon(prefix, { name = "", icon = "" } = {}) {
  const nameInput = h("input", { type: "text", id: `${prefix}-name`, autocomplete: "off", value: name });
  const iconInput = h("input", { type: "text", id: `${prefix}-icon`, autocomplete: "off", spellcheck: "false",
    value: icon });
  const nameBox = labelled(nameInput, "Name", { hint: "1 to 64 bytes; upper and lower case count." });
  const iconBox = labelled(iconInput, "Icon", { hint: "An icon name, e.g. moon or gamepad; may stay empty." });
  return {
    nameBox, iconBox, nameInput, iconInput,
    clear() { nameBox.clearError(); iconBox.clearError(); },
    /** The API's 400/409 next to the field it is about; false when it names neither. */
    place(failure) {
      const text = failure.message;
      const aboutName = /^(new_)?name /.test(text) || /^Missing field: name/.test(text) || failure.status === 409;
      const box = /^icon /.test(text) ? iconBox : aboutName ? nameBox : null;
      if (!box || ![400, 409].includes(failure.status)) return false;
      box.setError(text);
      box.focus();
      return true;
    },
  };
}

/** Builds the Profiles view. Answers {element, refresh}. */
export function buildProfiles(context) {
  let listing = { profiles: [], current: null };
  let editing = null; // the name whose editor is open
  let confirming = null; // the name whose deletion waits for a yes

  // Saving the current state as a new profile.
  const create = nameAndIcon("settings-profile-new");
  const createStatus = h("p", { class: "group-status", id: "settings-profile-new-status", role: "status" });
  const createButton = h("button", { type: "submit", class: "primary-button" }, "Save as a new profile");
  const createForm = h("form", { class: "settings-fields", novalidate: true }, create.nameBox.element,
    create.iconBox.element, h("div", { class: "group-actions" }, createButton, createStatus));
  const createCard = h("section",
    { class: "card settings-group", "aria-labelledby": "settings-profile-new-heading" },
    h("h3", { id: "settings-profile-new-heading" }, "Save the current state as a profile"),
    h("p", { class: "field-hint" }, "A profile holds the sliders (labels, what they control, positions), "
      + "the mutes, "
      + "the master volume and the macro pages as they are now."), createForm);

  const listHeading = h("h3", { id: "settings-profile-list-heading", tabindex: "-1" }, "Profiles");
  const status = h("p", { class: "group-status", id: "settings-profile-status", role: "status" });
  const list = h("ul", { class: "profile-rows", role: "list", "aria-labelledby": listHeading.id });
  const listCard = h("section", { class: "card settings-group", "aria-labelledby": listHeading.id },
    listHeading, status, list);

  async function reread() {
    try {
      listing = await api("GET", "/api/profiles", undefined, { quiet: true });
    } catch (failure) {
      say(status, `The profiles could not be read: ${failure.message}`, { error: true });
    }
    render();
  }

  async function afterLoad() {
    const settings = await api("GET", "/api/settings", undefined, { quiet: true }).catch(() => null);
    if (settings) context.onChanged(settings);
  }

  function focusButton(name, which) {
    list.querySelector(`[data-profile="${CSS.escape(name)}"][data-action="${which}"]`)?.focus();
  }

  function editorOf(profile, index) {
    const fields = nameAndIcon(`settings-profile-${index}`, profile);
    const save = h("button", { type: "submit", class: "primary-button" },
      "Save", h("span", { class: "sr-only" }, ` ${profile.name}`));
    const cancel = h("button", { type: "button" }, "Cancel");
    const form = h("form", { class: "settings-fields profile-editor", novalidate: true },
      fields.nameBox.element, fields.iconBox.element,
      h("p", { class: "field-hint", id: `settings-profile-${index}-note` },
        "Saving also stores the current state "
        + `(sliders, mutes, master volume, macros) in ${profile.name}, replacing what it held.`),
      h("div", { class: "group-actions" }, save, cancel));
    save.setAttribute("aria-describedby", `settings-profile-${index}-note`);
    cancel.addEventListener("click", () => { editing = null; render(); focusButton(profile.name, "edit"); });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      fields.clear();
      const body = { icon: fields.iconInput.value.trim() };
      const newName = fields.nameInput.value.trim();
      if (newName !== profile.name) body.new_name = newName;
      save.disabled = true;
      try {
        const answer = await api("PUT", path(profile.name), body, { quiet: true, headers: SOURCE_HEADER });
        const saved = answer.profile?.name || newName;
        editing = null;
        await reread();
        say(status, saved === profile.name ? `${saved} saved.` : `${profile.name} is called ${saved} now.`);
        focusButton(saved, "edit");
      } catch (failure) {
        if (!fields.place(failure)) say(status, `Not saved: ${failure.message}`, { error: true });
        save.disabled = false;
      }
    });
    return form;
  }

  function confirmOf(profile) {
    const yes = h("button",
      { type: "button", class: "danger-button", "data-profile": profile.name, "data-action": "yes" },
      "Yes, delete", h("span", { class: "sr-only" }, ` ${profile.name}`));
    const no = h("button", { type: "button" }, "Keep it");
    no.addEventListener("click", () => { confirming = null; render(); focusButton(profile.name, "delete"); });
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      try {
        await api("DELETE", path(profile.name), undefined, { quiet: true, headers: SOURCE_HEADER });
        confirming = null;
        await reread();
        say(status, `${profile.name} deleted.`);
        listHeading.focus(); // its row is gone
      } catch (failure) {
        say(status, `Not deleted: ${failure.message}`, { error: true });
        yes.disabled = false;
      }
    });
    return h("div", { class: "profile-confirm", role: "group", "aria-label": `Delete ${profile.name}?` },
      h("p", {}, `Delete ${profile.name}? Its file is removed; this cannot be undone.`),
      h("div", { class: "group-actions" }, yes, no));
  }

  function row(profile, index) {
    const current = profile.name === listing.current;
    const broken = typeof profile.error === "string" && profile.error !== "";
    const button = (text, action, extra = {}) => h("button", { type: "button", "data-profile": profile.name,
      "data-action": action, ...extra }, text, h("span", { class: "sr-only" }, ` ${profile.name}`));
    const load = button("Load", "load", { disabled: broken });
    const edit = button("Edit", "edit",
      { "aria-expanded": editing === profile.name ? "true" : "false", disabled: broken });
    const noteId = `settings-profile-${index}-why`;
    const remove = button("Delete", "delete", { disabled: current, "aria-describedby": current ? noteId : null });
    load.addEventListener("click", async () => {
      load.disabled = true;
      try {
        await api("POST", "/api/profiles/load", { name: profile.name }, { quiet: true });
        await reread();
        await afterLoad();
        say(status, `${profile.name} loaded: the sliders, mutes, volume and macros are as it holds them.`);
        focusButton(profile.name, "load");
      } catch (failure) {
        say(status, `Not loaded: ${failure.message}`, { error: true });
        load.disabled = false;
      }
    });
    edit.addEventListener("click", () => {
      editing = editing === profile.name ? null : profile.name;
      confirming = null;
      render();
      if (editing) document.getElementById(`settings-profile-${index}-name`)?.focus();
      else focusButton(profile.name, "edit");
    });
    remove.addEventListener("click", () => {
      confirming = profile.name;
      editing = null;
      render();
      focusButton(profile.name, "yes");
    });
    return h("li", { class: "profile-row", "aria-current": current ? "true" : null },
      h("div", { class: "profile-what" },
        h("span", { class: "profile-title" }, profile.name),
        current ? h("span", { class: "badge" }, "Current") : null,
        h("span", { class: "history-meta" }, profile.icon ? `Icon: ${profile.icon}` : "No icon",
          profile.updated ? ` · saved ${profile.updated.replace("T", " ")}` : "")),
      broken ? h("p", { class: "field-error" }, `Broken on disk: ${profile.error}`) : null,
      current ? h("p", { class: "field-hint", id: noteId },
        "The current profile cannot be deleted; load another one first.") : null,
      h("div", { class: "group-actions" }, load, edit, remove),
      editing === profile.name ? editorOf(profile, index) : null,
      confirming === profile.name ? confirmOf(profile) : null);
  }

  function render() {
    const profiles = Array.isArray(listing.profiles) ? listing.profiles : [];
    list.replaceChildren(...profiles.map(row));
    if (!profiles.length) list.replaceChildren(h("li", { class: "hint" }, "No profiles yet."));
  }

  createForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    create.clear();
    say(createStatus, "");
    createButton.disabled = true;
    const name = create.nameInput.value.trim();
    try {
      await api("POST", "/api/profiles", { name, icon: create.iconInput.value.trim() },
        { quiet: true, headers: SOURCE_HEADER });
      create.nameInput.value = "";
      create.iconInput.value = "";
      await reread();
      say(createStatus, `${name} saved with the current state.`);
    } catch (failure) {
      if (!create.place(failure)) say(createStatus, `Not saved: ${failure.message}`, { error: true });
    } finally {
      createButton.disabled = false;
    }
  });

  const element = h("div", { class: "settings-profiles" }, createCard, listCard);
  return { element, refresh: reread };
}
