// The history of configuration changes (GET /api/config/history), newest first, each with a
// "Roll back" button (POST /api/config/rollback: back to the version before that change), and
// Undo, which rolls back the newest entry. A rollback is a change too, so it can be undone: undoing
// a rollback brings back what the rollback replaced, i.e. it redoes the change that was rolled
// back. That is the API's meaning, so the button says which change it undoes and, for a
// rollback, what that means, before anyone presses it.
import { h } from "../dom.js";
import { api } from "../net.js";
import { SOURCE_HEADER, refusalHint, say } from "./form.js";

const SOURCES = { web: "Web page", api: "API", file: "settings.json reload", rollback: "Rollback" };

function when(time) {
  return typeof time === "string" ? time.replace("T", " ") : "";
}

/**
 * Builds the history view. `onChanged(settings)` hears the settings after every rollback.
 * Answers {element, refresh()}; refresh() reads the history again.
 */
export function buildHistory({ authEnabled, onChanged }) {
  const status = h("p", { class: "group-status", role: "status" });
  const undoWhat = h("p", { class: "field-hint", id: "settings-history-undo-what" });
  const undo = h("button", { type: "button", class: "primary-button", disabled: true,
    "aria-describedby": undoWhat.id }, "Undo the last change");
  const list = h("ol", { class: "history-list", "aria-labelledby": "settings-history-heading" });
  const empty = h("p", { class: "hint", hidden: true }, "No changes yet.");
  const element = h("section", { class: "card settings-history", "aria-labelledby": "settings-history-heading" },
    h("h3", { id: "settings-history-heading" }, "Changes, newest first"),
    h("p", { class: "field-hint" }, "Before every change mixerd keeps the version it replaces (the last 50). "
      + "Rolling back restores the version before a change; the rollback is a change of its own, "
      + "so it can be undone too."),
    h("div", { class: "group-actions" }, undo, status), undoWhat, empty, list);
  let newest = null;

  async function rollBack(entry, { label }) {
    say(status, "");
    try {
      const answer = await api("POST", "/api/config/rollback", { id: entry.id },
        { quiet: true, headers: SOURCE_HEADER });
      onChanged(answer.settings || {});
      await refresh();
      say(status, `${label}: the settings are as before change ${entry.id} (${entry.summary || "no keys"}).`);
    } catch (failure) {
      say(status, `Not rolled back: ${failure.message}`,
        { error: true, hint: failure.status === 403 ? refusalHint(authEnabled) : "" });
    }
    // The button pressed is gone after the list is drawn again: keep the focus in the view.
    if (!element.contains(document.activeElement)) undo.focus();
  }

  function entryItem(entry) {
    const describedId = `settings-history-${entry.id}`;
    const button = h("button", { type: "button", class: "rollback", "aria-describedby": describedId },
      "Roll back", h("span", { class: "sr-only" }, ` change ${entry.id}`));
    button.addEventListener("click", async () => {
      button.disabled = true;
      await rollBack(entry, { label: "Rolled back" });
      button.disabled = false;
    });
    return h("li", { class: "history-entry" },
      h("div", { class: "history-what", id: describedId },
        h("span", { class: "history-summary" }, entry.summary || "(no keys)"),
        h("span", { class: "history-meta" },
          h("time", { datetime: entry.time }, when(entry.time)), " · ",
          SOURCES[entry.source] || entry.source || "unknown", ` · change ${entry.id}`)),
      button);
  }

  // What Undo will do, in words: the button's text and its description follow the newest entry.
  function describeUndo() {
    const keys = newest?.summary || "no keys";
    if (!newest) {
      undo.textContent = "Undo the last change";
      undoWhat.textContent = "There is nothing to undo.";
    } else if (newest.source === "rollback") {
      undo.textContent = "Undo the rollback";
      undoWhat.textContent = `The last change, ${newest.id}, is a rollback (${keys}). Undo rolls it back: `
        + "the settings go back to what they were before that rollback, so the change it undid comes back.";
    } else {
      undo.textContent = "Undo the last change";
      const by = SOURCES[newest.source] || newest.source || "unknown";
      undoWhat.textContent = `Undo rolls back change ${newest.id} (${keys}, by ${by}): `
        + "those settings go back to what they were before it.";
    }
  }

  undo.addEventListener("click", async () => {
    if (!newest) return;
    undo.disabled = true;
    await rollBack(newest, { label: "Undone" });
    undo.disabled = !newest;
  });

  async function refresh() {
    let entries;
    try {
      const answer = await api("GET", "/api/config/history", undefined, { quiet: true });
      entries = Array.isArray(answer && answer.history) ? answer.history : [];
    } catch (failure) {
      say(status, `The history could not be read: ${failure.message}`, { error: true });
      return;
    }
    newest = entries[0] || null;
    undo.disabled = !newest;
    describeUndo();
    empty.hidden = entries.length > 0;
    list.replaceChildren(...entries.map(entryItem));
  }

  return { element, refresh };
}
