// The REST side: one helper for every request. A 401 means the session is gone: the login page
// takes over. Any other error shows the server's own `error` text in the alert area.
import { showError } from "./dom.js";

export class RequestFailed extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function goToLogin() {
  location.assign("/login");
}

/**
 * Sends a request to the controller API and resolves with the parsed JSON answer.
 * Rejects with RequestFailed (already shown to the user unless quiet is set). `headers` adds
 * request headers (e.g. X-Mixerd-Source); `keepalive` lets the request outlive the page (a release
 * sent as the page goes away).
 */
export async function api(method, path, body, { quiet = false, headers = {}, keepalive = false } = {}) {
  const init = { method, headers: { ...headers, Accept: "application/json" }, credentials: "same-origin",
    keepalive };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    const failure = new RequestFailed(0, "The daemon did not answer; check that mixerd runs.");
    if (!quiet) showError(failure.message);
    throw failure;
  }
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    answer = null;
  }
  if (response.status === 401 && path !== "/api/auth/login") {
    goToLogin();
    throw new RequestFailed(401, "Authentication required");
  }
  if (!response.ok) {
    const text = answer && typeof answer.error === "string" ? answer.error
      : `The request failed (HTTP ${response.status}).`;
    const failure = new RequestFailed(response.status, text);
    if (!quiet) showError(text);
    throw failure;
  }
  return answer;
}

/** Same as api() but never rejects: resolves with null on failure (the error was shown). */
export async function tryApi(method, path, body, options) {
  try {
    return await api(method, path, body, options);
  } catch {
    return null;
  }
}
