// The history of configuration changes (GET /api/config/history), newest first, each with a
// "Roll back" button (POST /api/config/rollback: back to the version before that change), and
// Undo, which rolls back the newest entry. A rollback is a change too, so it can be undone.
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
  const undo = h("button", { type: "button", class: "primary-button", disabled: true }, "Undo the last change");
  const list = h("ol", { class: "history-list", "aria-labelledby": "settings-history-heading" });
  const empty = h("p", { class: "hint", hidden: true }, "No changes yet.");
  const element = h("section", { class: "card settings-history", "aria-labelledby": "settings-history-heading" },
    h("h3", { id: "settings-history-heading" }, "Changes, newest first"),
    h("p", { class: "field-hint" }, "Before every change mixerd keeps the version it replaces (the last 50). "
      + "Rolling back restores the version before a change; the rollback is a change of its own, "
      + "so it can be undone too."),
    h("div", { class: "group-actions" }, undo, status), empty, list);
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
    empty.hidden = entries.length > 0;
    list.replaceChildren(...entries.map(entryItem));
  }

  return { element, refresh };
}
