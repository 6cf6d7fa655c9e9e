// The Security view: the login (on or off, the password, how long sessions last), the sessions
// with "Log out everywhere", and the notification API's key and handlers (notifications.js).
// The password goes through POST /api/auth/password, never as a setting: mixerd hashes it. While
// no password exists the first one may be set from any browser (it turns login on and logs
// this browser in); after that the current one is needed to change it.
import { h } from "../dom.js";
import { api, goToLogin } from "../net.js";
import { SOURCE_HEADER, say } from "./form.js";
import { fieldFor } from "./fields.js";
import { UNCHANGED } from "./frame.js";
import { labelled } from "./labelled.js";
import { actions, card, changesOf, loopbackRule, savePatch, statusLine } from "./live.js";
import { buildNotifications } from "./notifications.js";

function when(time) {
  return typeof time === "string" ? time.replace("T", " ") : "";
}

/** A labelled input with its error line, tied by aria-describedby; `hint` is optional. */
function input(id, text, attributes, hint = "") {
  return labelled(h("input", { id, ...attributes }), text, { hint });
}

function buildLogin(context, auth, reread) {
  const status = statusLine("security-login-status");
  const state = h("p", { class: "link-state", id: "security-login-state", role: "status" });
  const rule = h("p", { class: "field-hint" });
  const enabled = fieldFor("auth_enabled", context.schema.properties.auth_enabled || { type: "boolean" });
  enabled.element.querySelector("label").textContent = "Require login";
  const { button, row } = actions("Save", "login switch", status);
  const form = h("form", { class: "settings-fields", novalidate: true }, enabled.element, row);
  const element = card("security-login-heading", "Login", state, rule, form);

  const show = () => {
    const { auth_enabled: on, username, password_set: hasPassword } = auth();
    state.dataset.state = on ? "up" : "off";
    state.textContent = on ? `Login is on for ${username || "the user"}.`
      : hasPassword ? "Login is off. A password is set: turning login on uses it."
        : "Login is off, and no password is set yet.";
    rule.replaceChildren(on
      ? "Every browser and app needs to log in. Secrets, integrations and access settings can be "
        + "changed from any browser that is logged in."
      : loopbackRule({ authEnabled: false }));
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const saved = await savePatch({
      fields: [enabled], status, button, context,
      patch: () => (enabled.change() === UNCHANGED ? null : { auth_enabled: enabled.change() }),
      saved: "Login switch saved.",
    });
    if (!saved) return;
    enabled.reset(saved.auth_enabled);
    await reread();
    // Turning login on ends every session, this browser's too (it had none while login was off).
    if (saved.auth_enabled) say(status, "Login is on. This browser goes to the login page at its next request.");
  });
  return {
    element, show,
    reset: (settings) => enabled.reset(settings.auth_enabled),
    edited: () => enabled.change() !== UNCHANGED,
  };
}

function buildPassword(context, auth, reread) {
  const status = statusLine("security-password-status");
  const username = input("security-username", "Username",
    { type: "text", autocomplete: "username", spellcheck: "false", maxlength: "64" },
    "Leave it as it is to keep the current user name.");
  const currentPassword = input("security-current-password", "Current password",
    { type: "password", autocomplete: "current-password" });
  const fresh = input("security-new-password", "New password",
    { type: "password", autocomplete: "new-password", minlength: "8" }, "At least 8 characters.");
  const repeat = input("security-repeat-password", "New password again",
    { type: "password", autocomplete: "new-password" });
  const { button, row } = actions("Set the password", "", status);
  const intro = h("p", { class: "field-hint" });
  const form = h("form", { class: "settings-fields", novalidate: true },
    username.element, currentPassword.element, fresh.element, repeat.element, row);
  const element = card("security-password-heading", "Password", intro, form);
  const all = [username, currentPassword, fresh, repeat];

  const show = () => {
    const { password_set: hasPassword, username: name } = auth();
    currentPassword.element.hidden = !hasPassword;
    button.firstChild.textContent = hasPassword ? "Change the password" : "Set the password";
    if (!username.control.value) username.control.value = name || context.settings.auth_username || "admin";
    intro.textContent = hasPassword
      ? "Changing the password needs the current one. It ends every other session."
      : "No password is set yet. Setting one turns login on and logs this browser in; any browser "
        + "may set the first one, so set it before others on the network do.";
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    all.forEach((one) => one.clearError());
    say(status, "");
    const hasPassword = auth().password_set;
    if (fresh.control.value.length < 8) return refuse(fresh, "password must be at least 8 characters");
    if (fresh.control.value !== repeat.control.value) return refuse(repeat, "The two new passwords differ.");
    if (hasPassword && !currentPassword.control.value) {
      return refuse(currentPassword, "current_password is required to change the password");
    }
    const body = { password: fresh.control.value };
    if (hasPassword) body.current_password = currentPassword.control.value;
    if (username.control.value.trim()) body.username = username.control.value.trim();
    button.disabled = true;
    try {
      const answer = await api("POST", "/api/auth/password", body, { quiet: true, headers: SOURCE_HEADER });
      [currentPassword, fresh, repeat].forEach((one) => { one.control.value = ""; });
      await reread();
      // The password is written through the settings: the other views show what changed.
      const settings = await api("GET", "/api/settings", undefined, { quiet: true }).catch(() => null);
      if (settings) context.onSaved(settings);
      say(status, `Password set. Login is on; this browser is logged in as ${answer.username || body.username}.`);
    } catch (failure) {
      const text = failure.message;
      const target = /^current_password/.test(text) ? currentPassword
        : /^password/.test(text) ? fresh : /^username/.test(text) ? username : null;
      if (target && (failure.status === 400 || failure.status === 403)) refuse(target, text);
      else {
        say(status, `Not set: ${text}`, { error: true });
        if (failure.status === 403) status.append(loopbackRule(context));
      }
    } finally {
      button.disabled = false;
    }
  });
  function refuse(one, text) {
    one.setError(text);
    one.control.focus();
    say(status, "Not set: a value was refused.", { error: true });
  }
  return { element, show };
}

function buildLifetimes(context) {
  const keys = ["session_timeout", "session_max_lifetime"].filter((key) => context.schema.properties[key]);
  const fields = keys.map((key) => fieldFor(key, context.schema.properties[key]));
  const status = statusLine("security-sessions-length-status");
  const { button, row } = actions("Save", "session lengths", status);
  const form = h("form", { class: "settings-fields", novalidate: true }, ...fields.map((one) => one.element), row);
  const element = card("security-lifetimes-heading", "Session length",
    h("p", { class: "field-hint" }, "In seconds: 86400 is a day, 2592000 thirty days."), form);
  const reset = (settings, { keepEdits = false } = {}) => {
    for (const field of fields) if (!keepEdits || field.change() === UNCHANGED) field.reset(settings[field.key]);
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const saved = await savePatch({
      fields, status, button, context, patch: () => changesOf(fields), saved: "Session length saved.",
    });
    if (saved) reset(saved);
  });
  return { element, reset };
}

function buildSessions() {
  const status = statusLine("security-sessions-status");
  const list = h("ul", { class: "session-list", "aria-labelledby": "security-list-heading" });
  const empty = h("p", { class: "hint" });
  const everywhere = h("button", { type: "button", class: "primary-button" }, "Log out everywhere");
  const element = card("security-list-heading", "Sessions",
    h("p", { class: "field-hint" }, "The browsers and apps logged in now. Log out everywhere ends every "
      + "session, this one too."), list, empty, h("div", { class: "group-actions" }, everywhere, status));

  function item(session) {
    return h("li", { class: "session" },
      h("span", { class: "session-who" }, `${session.username || "?"} from ${session.address || "?"}`,
        session.current ? h("span", { class: "session-current" }, " (this browser)") : null),
      h("span", { class: "history-meta" }, `Logged in ${when(session.login)} · last seen ${when(session.last_seen)}`));
  }
  async function refresh() {
    try {
      const answer = await api("GET", "/api/auth/sessions", undefined, { quiet: true });
      const sessions = Array.isArray(answer && answer.sessions) ? answer.sessions : [];
      list.replaceChildren(...sessions.map(item));
      empty.textContent = sessions.length ? "" : "No sessions: nobody is logged in.";
      everywhere.disabled = sessions.length === 0;
    } catch (failure) {
      list.replaceChildren();
      everywhere.disabled = true;
      empty.textContent = failure.status === 404 ? "This mixerd does not list its sessions."
        : `The sessions could not be read: ${failure.message}`;
    }
  }
  everywhere.addEventListener("click", async () => {
    everywhere.disabled = true;
    try {
      const answer = await api("POST", "/api/auth/logout-everywhere", undefined, { quiet: true });
      say(status, `${answer.ended} session(s) ended. Going to the login page…`);
      goToLogin();
    } catch (failure) {
      say(status, `Not done: ${failure.message}`, { error: true });
      everywhere.disabled = false;
    }
  });
  return { element, refresh };
}

/** Builds the view; answers {element, refresh, show, saved} (views.js). */
export function buildSecurity(context) {
  let auth = { auth_enabled: context.authEnabled, ...context.auth };
  const parts = [];
  const reread = async () => {
    try {
      auth = await api("GET", "/api/auth/status", undefined, { quiet: true });
    } catch {
      return;
    }
    context.authEnabled = Boolean(auth.auth_enabled); // the other views' refusals say the rule
    login.reset({ auth_enabled: auth.auth_enabled }); // the login as it is now beats an unsaved toggle
    parts.forEach((part) => part.show?.());
    await sessions.refresh(); // a new password ends the sessions and starts this browser's
  };
  const login = buildLogin(context, () => auth, reread);
  const password = buildPassword(context, () => auth, reread);
  const lifetimes = buildLifetimes(context);
  const sessions = buildSessions();
  const notifications = buildNotifications(context);
  parts.push(login, password);
  login.reset(context.settings);
  lifetimes.reset(context.settings);
  parts.forEach((part) => part.show());
  const element = h("div", { class: "settings-groups" }, login.element, password.element,
    sessions.element, lifetimes.element, ...notifications.elements);
  return {
    element,
    refresh: reread,
    show(values) {
      login.reset(values);
      lifetimes.reset(values);
      notifications.reset(values);
    },
    saved(values) {
      if (!login.edited()) login.reset(values);
      lifetimes.reset(values, { keepEdits: true });
      notifications.reset(values, { keepEdits: true });
    },
  };
}
