// The login form: POST /api/auth/login, then go where the answer's `redirect` says (only a path
// on this site is followed).
const form = document.getElementById("login-form");
const username = document.getElementById("username");
const password = document.getElementById("password");
const remember = document.getElementById("remember");
const error = document.getElementById("login-error");
const button = document.getElementById("login-button");

function safeRedirect(target) {
  return typeof target === "string" && target.startsWith("/") && !target.startsWith("//") && !target.startsWith("/\\")
    ? target : "/";
}

function fail(text, field) {
  error.textContent = text;
  if (field) {
    field.setAttribute("aria-invalid", "true");
    field.focus();
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.textContent = "";
  username.removeAttribute("aria-invalid");
  password.removeAttribute("aria-invalid");
  if (!username.value) return fail("Type your username.", username);
  if (!password.value) return fail("Type your password.", password);
  button.disabled = true;
  button.textContent = "Logging in…";
  try {
    const response = await fetch("/api/auth/login", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ username: username.value, password: password.value, remember: remember.checked }),
    });
    const answer = await response.json().catch(() => null);
    if (response.ok && answer && answer.success) {
      location.assign(safeRedirect(answer.redirect));
      return;
    }
    const text = answer && typeof answer.error === "string" ? answer.error : `Login failed (HTTP ${response.status}).`;
    fail(text, response.status === 401 ? password : null);
  } catch {
    fail("The daemon did not answer; check that mixerd runs.");
  } finally {
    button.disabled = false;
    button.textContent = "Log in";
  }
});

// Already logged in, or login switched off: say so and offer the way back.
fetch("/api/auth/status", { credentials: "same-origin" })
  .then((response) => (response.ok ? response.json() : null))
  .then((status) => {
    if (!status) return;
    const note = document.getElementById("login-note");
    if (!status.auth_enabled) {
      note.replaceChildren("Login is switched off on this mixer. ", Object.assign(document.createElement("a"), { href: "/", textContent: "Open the controller" }));
    } else if (status.authenticated) {
      note.replaceChildren(`You are logged in as ${status.username}. `, Object.assign(document.createElement("a"), { href: "/", textContent: "Open the controller" }));
    }
  })
  .catch(() => {});
username.focus();
