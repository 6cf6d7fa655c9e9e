// What the settings views share beyond form.js: following the live events of the page's one
// Socket.IO connection (main.js repeats each as a window event "mixerd:<name>"), saving a few
// fields as one JSON merge patch with the API's answer shown where it belongs, and the words
// for a refusal under the loopback rule with the offer to set a password.
import { h } from "../dom.js";
import { api } from "../net.js";
import { SOURCE_HEADER, fieldNamedBy, say } from "./form.js";
import { UNCHANGED } from "./frame.js";

/** Calls handler(payload) on each event of `names` (Socket.IO events, docs/api.md 3.2) while
 *  `owner` is in the page: the area draws its views afresh at every opening, and the old ones'
 *  listeners go with their first event after that. */
export function follow(names, handler, owner) {
  for (const name of names) {
    const listener = (event) => {
      if (!owner.isConnected) {
        window.removeEventListener(`mixerd:${name}`, listener);
        return;
      }
      handler(event.detail, name);
    };
    window.addEventListener(`mixerd:${name}`, listener);
  }
}

/** The Security view's password form, opened from a refusal elsewhere. */
export function offerPassword() {
  document.getElementById("settings-tab-security")?.click();
  document.getElementById("security-new-password")?.focus();
}

/** The loopback rule in words, with a button that leads to the password form. */
export function loopbackRule({ authEnabled }) {
  if (authEnabled) {
    return h("span", { class: "status-hint" },
      "Log in again: changing this needs a session (it may have ended).");
  }
  const button = h("button", { type: "button", class: "link-button" }, "Set a password");
  button.addEventListener("click", offerPassword);
  return h("span", { class: "status-hint" },
    "Login is off, so only a browser on the machine that runs mixerd may change secrets, "
    + "integrations and access settings. Setting a password turns login on; logged in, you can "
    + "change them from any browser. ", button);
}

/** Every member change of `fields` (each with .key): {key: change}, or null when none. */
export function changesOf(fields) {
  const patch = {};
  for (const field of fields) {
    const change = field.change();
    if (change !== UNCHANGED) patch[field.key] = change;
  }
  return Object.keys(patch).length ? patch : null;
}

/**
 * Saves `patch` (a JSON merge patch, or a function making it; null: nothing changed) for the
 * fields `fields` with PATCH /api/settings. A problem found before sending, a value the API
 * refuses (400 naming a field's path) and a refused caller (403) are shown at the field or in
 * `status`. Resolves with the settings after the change, or null when nothing was saved.
 */
export async function savePatch({ fields, patch, status, button, context, saved }) {
  const all = fields.flatMap((field) => field.fields());
  all.forEach((field) => field.clearError());
  say(status, "");
  const problems = all.map((field) => [field, field.problem()]).filter(([, problem]) => problem);
  if (problems.length) {
    problems.forEach(([field, problem]) => field.setError(problem));
    problems[0][0].focus();
    say(status, "Not saved: a value is not right.", { error: true });
    return null;
  }
  const body = typeof patch === "function" ? patch() : patch;
  if (!body) {
    say(status, "Nothing to save: no value changed.");
    return null;
  }
  if (button) button.disabled = true;
  try {
    const answer = await api("PATCH", "/api/settings", body, { quiet: true, headers: SOURCE_HEADER });
    const settings = answer.settings || {};
    context.onSaved(settings);
    say(status, saved);
    return settings;
  } catch (failure) {
    const named = failure.status === 400 ? fieldNamedBy(failure.message, all) : null;
    if (named) {
      named.setError(failure.message);
      named.focus();
      say(status, "Not saved: a value was refused.", { error: true });
    } else {
      say(status, `Not saved: ${failure.message}`, { error: true });
      if (failure.status === 403) status.append(loopbackRule(context));
    }
    return null;
  } finally {
    if (button) button.disabled = false;
  }
}

/** A card of a view: heading, optional status line, content. */
export function card(id, title, ...content) {
  return h("section", { class: "card settings-group", "aria-labelledby": id },
    h("h3", { id }, title), ...content);
}

/** A group's save button with its status line, in one row. */
export function actions(label, hidden, status, ...more) {
  const button = h("button", { type: "submit", class: "primary-button" }, label,
    hidden ? h("span", { class: "sr-only" }, ` ${hidden}`) : null);
  return { button, row: h("div", { class: "group-actions" }, button, ...more, status) };
}

export function statusLine(id) {
  return h("p", { class: "group-status", id, role: "status" });
}
