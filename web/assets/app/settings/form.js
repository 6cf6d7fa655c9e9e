// The generic settings form: a field for every top-level key of the schema, grouped by the
// capability that owns it (x-owner). Each group saves on its own with PATCH /api/settings,
// sending only what changed (a JSON merge patch), and shows the API's answer where it belongs:
// a refused value next to its field, a refused caller (403) in the group, success in the group's
// live region.
import { h } from "../dom.js";
import { UNCHANGED } from "./frame.js";
import { fieldFor } from "./fields.js";
import { changesOf, savePatch } from "./live.js";

// Keys never in the generic form: the macro pages and the mutes (x-live state of their own), and
// those a view of views.js claims (passed as `claimed`).
const SPECIAL_EDITORS = new Set(["macros", "current_profile", "mutes"]);
// Group order and titles; an owner not listed here follows, titled from its name.
const OWNERS = [
  ["daemon", "Daemon"], ["device", "Device"], ["auth", "Login"], ["network", "Network"],
  ["mixer", "Mixer"], ["macros", "Macros"], ["profiles", "Profiles"], ["smarthome", "Smart home"],
  ["stream", "Streaming"], ["mqtt", "MQTT"], ["mdns", "mDNS"], ["toast", "Notifications"],
  ["plants", "Plant store"], ["plugins", "Plugins"],
];
export const SOURCE_HEADER = { "X-Mixerd-Source": "web" };
const CONFIRMATION_MS = 6000;

function titleOf(owner) {
  const known = OWNERS.find(([name]) => name === owner);
  return known ? known[1] : owner.charAt(0).toUpperCase() + owner.slice(1).replace(/_/g, " ");
}

function rankOf(owner) {
  const index = OWNERS.findIndex(([name]) => name === owner);
  return index < 0 ? OWNERS.length : index;
}

/** The keys the generic form edits, grouped: [[owner, [[key, schema], ...]], ...] in order. */
export function groupsOf(schema, claimed = new Set()) {
  const groups = new Map();
  for (const [key, member] of Object.entries(schema.properties || {})) {
    if (SPECIAL_EDITORS.has(key) || claimed.has(key) || !member || member["x-live"]) continue;
    const owner = typeof member["x-owner"] === "string" ? member["x-owner"] : "other";
    if (!groups.has(owner)) groups.set(owner, []);
    groups.get(owner).push([key, member]);
  }
  return [...groups].sort(([a], [b]) => rankOf(a) - rankOf(b) || a.localeCompare(b));
}

/** The field whose key path starts the API's sentence ("smarthome.url must be ..."): the
 *  longest such path, followed by a space, a dot or a bracket. */
export function fieldNamedBy(message, fields) {
  let best = null;
  for (const field of fields) {
    const next = message.charAt(field.path.length);
    if (message.startsWith(field.path) && [" ", ".", "["].includes(next)
        && (!best || field.path.length > best.path.length)) best = field;
  }
  return best;
}

/** Text in a group's live region; a confirmation goes away by itself, an error stays. */
export function say(region, text, { error = false, hint = "" } = {}) {
  clearTimeout(region.timer);
  region.classList.toggle("is-error", error);
  region.replaceChildren(text, hint ? h("span", { class: "status-hint" }, ` ${hint}`) : "");
  if (!error && text) region.timer = setTimeout(() => region.replaceChildren(), CONFIRMATION_MS);
}

/** What a 403 means for this user: with login off, only a browser on mixerd's machine may. */
export function refusalHint(authEnabled) {
  return authEnabled ? "" : "Login is off, so only a browser on the machine that runs mixerd may "
    + "change this. Setting a password (in Security, or mixerd set-password USERNAME on that "
    + "machine) turns login on; logged in, you can change it from any browser.";
}

function buildGroup(owner, members, context) {
  const title = titleOf(owner);
  const headingId = `settings-group-${owner}`;
  const fields = members.map(([key, member]) => fieldFor(key, member));
  const status = h("p", { class: "group-status", id: `${headingId}-status`, role: "status" });
  const save = h("button", { type: "submit", class: "primary-button" },
    "Save", h("span", { class: "sr-only" }, ` ${title} settings`));
  const form = h("form", { class: "settings-fields", novalidate: true },
    ...fields.map((field) => field.element), h("div", { class: "group-actions" }, save, status));
  const element = h("section", { class: "card settings-group", "aria-labelledby": headingId },
    h("h3", { id: headingId }, title), form);
  const group = { owner, fields, element };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    savePatch({
      fields, patch: () => changesOf(fields), status, button: save, saved: `${title} settings saved.`,
      context: { ...context, onSaved: (settings) => context.onSaved(settings, group) },
    });
  });
  return group;
}

/**
 * Builds the form for `schema` showing `settings`. `onSaved(settings)` hears every successful
 * save. Answers {element, show(settings)}: show() puts new running values in every field (after
 * a rollback). After a group's save, the other groups' unsaved edits are kept.
 */
export function buildForm(schema, settings, { authEnabled, onSaved, claimed }) {
  const context = { authEnabled, onSaved: (saved, group) => { show(saved, { except: group }); onSaved(saved); } };
  const groups = groupsOf(schema, claimed).map(([owner, members]) => buildGroup(owner, members, context));

  function show(values, { except = null } = {}) {
    for (const group of groups) {
      for (const field of group.fields) {
        const keep = except && group !== except && field.change() !== UNCHANGED;
        if (!keep) field.reset(values[field.key]);
      }
    }
  }
  show(settings);
  const element = groups.length ? h("div", { class: "settings-groups" }, ...groups.map((group) => group.element))
    : h("p", { class: "hint" }, "This mixerd has no settings to edit here.");
  return { element, show, saved: (values) => show(values, { except: "all" }) };
}
