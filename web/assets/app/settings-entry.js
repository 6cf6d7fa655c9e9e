// The Settings button in the header. The settings area's code and style are fetched only when it
// first opens (dynamic import), so the live page stays small for everyone who never opens it.
// The area has the address #settings: a phone's Back button closes it, a link can open it.
import { showError } from "./dom.js";

const HASH = "#settings";
let area = null; // the settings module's promise, once asked for
let pushedHash = false; // whether this page added the #settings history entry

function loadStyle(href) {
  if (document.querySelector(`link[href="${href}"]`)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    link.addEventListener("load", () => resolve());
    link.addEventListener("error", () => reject(new Error(`${href} did not load`)));
    document.head.append(link);
  });
}

function loadArea() {
  area ??= Promise.all([import("./settings/area.js"), loadStyle("/assets/settings.css")])
    .then(([module]) => module)
    .catch((error) => {
      area = null; // a later try may succeed (the daemon was restarting)
      throw error;
    });
  return area;
}

function setExpanded(open) {
  document.getElementById("settings-open").setAttribute("aria-expanded", open ? "true" : "false");
}

async function follow() {
  const wanted = location.hash === HASH;
  if (!wanted) {
    if (area) (await area).closeSettings();
    setExpanded(false);
    return;
  }
  try {
    const module = await loadArea();
    if (location.hash !== HASH) return; // closed again while loading
    setExpanded(true);
    await module.openSettings({ onClose: close });
  } catch (error) {
    showError(`The settings could not be opened: ${error.message || error}`);
    close();
  }
}

function open() {
  pushedHash = true;
  location.hash = HASH; // follow() runs on hashchange
}

function close() {
  if (location.hash !== HASH) return;
  if (pushedHash) {
    pushedHash = false;
    history.back();
  } else {
    history.replaceState(null, "", location.pathname + location.search);
    follow();
  }
}

export function setupSettingsEntry() {
  const button = document.getElementById("settings-open");
  button.addEventListener("click", () => (location.hash === HASH ? close() : open()));
  window.addEventListener("hashchange", follow);
  if (location.hash === HASH) follow();
}
