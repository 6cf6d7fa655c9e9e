// The Backup view (docs/api/settings.md "Backup"): export the configuration to a file (GET
// /api/config/export, no secrets), export it with the secrets after the login password is typed
// again (POST /api/config/export), and import a file (POST /api/config/import) after showing what
// it holds and asking to confirm. An import is a change like any other: the history keeps the
// settings it replaced, so it can be rolled back there.
import { h } from "../dom.js";
import { RequestFailed, api, goToLogin } from "../net.js";
import { SOURCE_HEADER, refusalHint, say } from "./form.js";
import { labelled } from "./labelled.js";

const IMPORT_MAX_BYTES = 8 * 1024 * 1024; // the API's limit for an import's body

/** The file name of a Content-Disposition header ("attachment; filename=\"x.json\""). */
function fileNameOf(disposition) {
  const match = /filename="?([^";]+)"?/i.exec(disposition || "");
  return match ? match[1] : "";
}

/**
 * Fetches an export and hands it to the browser as a download (a Blob behind a temporary link
 * with `download`: the page is a single-page app, so navigating to the route would leave it).
 * Rejects with RequestFailed, its `retryAfter` set from the header when the answer has one.
 */
async function downloadExport(body) {
  const init = { method: body ? "POST" : "GET", credentials: "same-origin",
    headers: { Accept: "application/json" } };
  if (body) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch("/api/config/export", init);
  } catch {
    throw new RequestFailed(0, "The daemon did not answer; check that mixerd runs.");
  }
  if (response.status === 401) {
    goToLogin();
    throw new RequestFailed(401, "Authentication required");
  }
  if (!response.ok) {
    const answer = await response.json().catch(() => null);
    const failure = new RequestFailed(response.status, typeof answer?.error === "string" ? answer.error
      : `The export failed (HTTP ${response.status}).`);
    failure.retryAfter = Number(response.headers.get("Retry-After")) || 0;
    throw failure;
  }
  const blob = await response.blob();
  const name = fileNameOf(response.headers.get("Content-Disposition")) || "mixerd-config.json";
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started once click() returns; the URL is freed a little later all the same.
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  return name;
}

function plainExport() {
  const status = h("p", { class: "group-status", id: "settings-export-status", role: "status" });
  const button = h("button", { type: "button", class: "primary-button" }, "Export the configuration");
  button.addEventListener("click", async () => {
    button.disabled = true;
    say(status, "");
    try {
      const name = await downloadExport(null);
      say(status, `Saved as ${name} in the browser's downloads.`);
    } catch (failure) {
      say(status, `Not exported: ${failure.message}`, { error: true });
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { class: "card settings-group", "aria-labelledby": "settings-export-heading" },
    h("h3", { id: "settings-export-heading" }, "Export the configuration"),
    h("p", { class: "field-hint" }, "A file with every setting, the macro pages and every profile. "
      + "It holds no passwords, tokens or keys, so it is safe to keep anywhere; importing it later "
      + "keeps the ones set here."),
    h("div", { class: "group-actions" }, button, status));
}

function secretExport(context) {
  const input = h("input",
    { type: "password", id: "settings-export-password", autocomplete: "current-password" });
  const noPassword = context.auth.password_set === false
    ? " mixerd has no login password yet: set one first in Security." : "";
  const field = labelled(input, "Login password",
    { hint: `mixerd asks for the login password again before it hands out the secrets.${noPassword}` });
  const status = h("p", { class: "group-status", id: "settings-export-secrets-status", role: "status" });
  const button = h("button", { type: "submit", class: "primary-button" }, "Export with the passwords");
  const form = h("form", { class: "settings-fields", novalidate: true }, field.element,
    h("div", { class: "group-actions" }, button, status));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    field.clearError();
    say(status, "");
    if (!input.value) {
      field.setError("Type the login password.");
      field.focus();
      return;
    }
    button.disabled = true;
    try {
      const name = await downloadExport({ password: input.value });
      input.value = "";
      say(status, `Saved as ${name}, with the passwords. Keep it where only you can read it.`);
    } catch (failure) {
      const again = failure.retryAfter && !/try again/i.test(failure.message)
        ? ` Try again in ${failure.retryAfter} s.` : "";
      // A refused caller (login needed, or another machine) is not the password's fault.
      if (failure.status === 403 && /needs login|this machine/.test(failure.message)) {
        say(status, `Not exported: ${failure.message}`,
          { error: true, hint: refusalHint(context.authEnabled) });
      } else if ([403, 429, 503].includes(failure.status)) {
        field.setError(`${failure.message}${again}`);
        field.focus();
      } else {
        say(status, `Not exported: ${failure.message}`, { error: true });
      }
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { class: "card settings-group", "aria-labelledby": "settings-export-secrets-heading" },
    h("h3", { id: "settings-export-secrets-heading" }, "Export with the passwords"),
    h("p", { class: "backup-warning", id: "settings-export-secrets-warning" },
      "This file holds the passwords, tokens and keys in plain text: the Home Assistant token, the "
      + "OBS and MQTT passwords, the API keys and the login's password hash. Anyone who gets the "
      + "file can use them. Keep it where only you can read it, and never share it."),
    form);
}

/** What a file holds, in words: [term, description] pairs. */
function describe(file) {
  const profiles = Array.isArray(file.profiles) ? file.profiles : null;
  const names = profiles ? profiles.map((p) => (p && typeof p.name === "string" ? p.name : "?")) : [];
  let held;
  if (!profiles) held = "None: the profiles here stay as they are.";
  else if (!profiles.length) held = "0: every profile here is deleted.";
  else {
    held = `${profiles.length} (${names.join(", ")}). They replace the profiles here; `
      + "a profile the file does not hold is deleted.";
  }
  return [
    ["Exported", typeof file.exported === "string" ? file.exported.replace("T", " ") : "Not said"],
    ["mixerd version", typeof file.app_version === "string" ? file.app_version : "Not said"],
    ["Passwords and tokens", file.secrets === true ? "Included: those in the file replace the ones set here."
      : "Not included: the ones set here are kept."],
    ["Profiles", held],
  ];
}

function importer(context) {
  const input = h("input", { type: "file", id: "settings-import-file", accept: "application/json,.json" });
  const field = labelled(input, "Configuration file",
    { hint: "A file saved with Export (at most 8 MiB). Nothing changes until you confirm." });
  const status = h("p", { class: "group-status", id: "settings-import-status", role: "status" });
  const heading = h("h3", { id: "settings-import-heading", tabindex: "-1" }, "Import a configuration");
  const summary = h("dl", { class: "backup-summary", id: "settings-import-summary" });
  const replace = h("button", { type: "button", class: "danger-button", "aria-describedby": summary.id },
    "Replace the configuration with this file");
  const cancel = h("button", { type: "button" }, "Cancel");
  const question = h("p", { id: "settings-import-question" }, "Check what the file holds:");
  const confirm = h("div", { class: "backup-confirm", role: "group", "aria-labelledby": question.id,
    hidden: true },
    question, summary,
    h("p", { class: "field-hint" }, "The settings and macros here are replaced by the file's; the mutes, "
      + "the master volume and the current profile stay as they are. The history keeps the settings as "
      + "they are now, so you can roll the import back there; it keeps no profiles, so export first to "
      + "keep the ones here."),
    h("div", { class: "group-actions" }, replace, cancel));
  let chosen = null;

  function reset() {
    chosen = null;
    confirm.hidden = true;
    input.value = "";
  }

  input.addEventListener("change", async () => {
    field.clearError();
    say(status, "");
    confirm.hidden = true;
    chosen = null;
    const file = input.files && input.files[0];
    if (!file) return;
    if (file.size > IMPORT_MAX_BYTES) {
      field.setError(`${file.name} is larger than 8 MiB, the most mixerd takes.`);
      return;
    }
    let parsed;
    try {
      parsed = JSON.parse(await file.text());
    } catch (failure) {
      field.setError(`${file.name} is no JSON file: ${failure.message}`);
      return;
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      field.setError(`${file.name} holds no configuration: an export is a JSON object.`);
      return;
    }
    chosen = parsed;
    summary.replaceChildren(
      ...describe(parsed).flatMap(([term, text]) => [h("dt", {}, term), h("dd", {}, text)]));
    confirm.hidden = false;
    replace.focus();
  });

  cancel.addEventListener("click", () => {
    reset();
    say(status, "Nothing imported.");
    input.focus();
  });

  replace.addEventListener("click", async () => {
    if (!chosen) return;
    replace.disabled = true;
    try {
      const answer = await api("POST", "/api/config/import", chosen, { quiet: true, headers: SOURCE_HEADER });
      context.onChanged(answer.settings || {});
      const history = await api("GET", "/api/config/history", undefined, { quiet: true }).catch(() => null);
      const entry = history?.history?.[0];
      reset();
      say(status, "Imported: the settings, macros and profiles are the file's now. The settings as they were "
        + `before are in History${entry ? ` (change ${entry.id})` : ""}: roll back there to return to them. `
        + "The profiles the file replaced are not kept there.");
      clearTimeout(status.timer); // an outcome this large stays until the next action
      heading.focus();
    } catch (failure) {
      if (failure.status === 400) {
        confirm.hidden = true;
        field.setError(`Not imported, nothing changed: ${failure.message}`);
        field.focus();
      } else {
        say(status, `Not imported: ${failure.message}`,
          { error: true, hint: failure.status === 403 ? refusalHint(context.authEnabled) : "" });
      }
    } finally {
      replace.disabled = false;
    }
  });

  return h("section", { class: "card settings-group backup-import", "aria-labelledby": heading.id },
    heading,
    h("p", { class: "field-hint" }, "Replaces the settings, the macro pages and the profiles with those of "
      + "an exported file."),
    field.element, confirm, status);
}

/** Builds the Backup view. Answers {element}. */
export function buildBackup(context) {
  const element = h("div", { class: "settings-backup" },
    plainExport(), secretExport(context), importer(context));
  return { element };
}
