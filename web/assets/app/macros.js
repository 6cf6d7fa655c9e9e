// The macro pages: a tab per page (the device's current page marked), 9 slots per page. Tapping
// a slot runs it (POST /api/macros/trigger); its outcome arrives as macro_executed. A hold kind
// (hold_mute, hold_unmute) acts while its tile is held down, as the device's button: the press
// on pointer down (or Space/Enter down), renewed every 3 s while held (the daemon ends a hold
// that is not renewed within 10 s: a page that vanished cannot leave a mute held), and the
// release on pointer up, cancel, lost capture, blur or when the page goes away. The page the
// device shows is switched on the device only, so the tabs here just choose what to look at.
import { h, absent, announce, showError } from "./dom.js";
import { tryApi } from "./net.js";

const HOLD_KINDS = new Set(["hold_mute", "hold_unmute"]);
const HOLD_RENEW_MS = 3000;
const holds = new Map(); // "page:index" -> {page, index, renew (interval id), stop()}

const PAGE_COUNT = 4;
const SLOT_COUNT = 9;

let macroSet = null; // the Macro page set
let viewed = null; // page shown here (null: follow the device's page)
const running = new Map(); // "page:index" -> the slot's button, while the macro runs

const KIND_WORDS = {
  hotkey: "Keys", command: "Command", http: "Web request", media: "Media", mute: "Mute",
  volume: "Volume", profile: "Profile", smarthome: "Smart home", stream_scene: "Scene",
  stream_source: "Source", sequence: "Sequence", plugin: "Plugin", hold_mute: "Hold to mute",
  hold_unmute: "Hold to talk",
};

function pageName(page) {
  const names = (macroSet && macroSet.page_names) || {};
  const name = names[String(page)];
  return typeof name === "string" && name !== "" ? name : `Page ${page + 1}`;
}

function currentPage() {
  const page = Number(macroSet && macroSet.current_page);
  return Number.isInteger(page) && page >= 0 && page < PAGE_COUNT ? page : 0;
}

function slotsOf(page) {
  const pages = (macroSet && macroSet.pages) || {};
  const slots = Array.isArray(pages[String(page)]) ? pages[String(page)] : [];
  return Array.from({ length: SLOT_COUNT }, (_, index) => slots[index] || { type: "none" });
}

async function trigger(page, index, macro, button) {
  const key = `${page}:${index}`;
  button.setAttribute("aria-busy", "true");
  button.classList.add("is-running");
  running.set(key, button);
  const answer = await tryApi("POST", "/api/macros/trigger", { index, page });
  if (!answer) {
    running.delete(key);
    button.removeAttribute("aria-busy");
    button.classList.remove("is-running");
  }
}

function heldLook(button, held) {
  button.setAttribute("aria-pressed", held ? "true" : "false");
}

/** The tile goes down: the press, then a renewal every 3 s until the release. */
function holdDown(page, index, button) {
  const key = `${page}:${index}`;
  if (holds.has(key)) return;
  const press = () => tryApi("POST", "/api/macros/trigger", { index, page, phase: "press" }, { quiet: true });
  const hold = { page, index, renew: setInterval(press, HOLD_RENEW_MS), stop: () => {} };
  holds.set(key, hold);
  heldLook(button, true);
  press().then((answer) => {
    // A refused press (e.g. 429) holds nothing: say why, and show the tile up again.
    if (!answer && holds.get(key) === hold) {
      holdUp(key);
      showError(`${button.querySelector(".slot-name").textContent} could not be held.`);
    }
  });
}

/** The tile comes up (or the page goes away): the release, which may outlive the page. */
function holdUp(key) {
  const hold = holds.get(key);
  if (!hold) return;
  holds.delete(key);
  clearInterval(hold.renew);
  hold.stop();
  for (const held of document.querySelectorAll(`button.slot.hold[data-slot="${key}"]`)) heldLook(held, false);
  tryApi("POST", "/api/macros/trigger", { index: hold.index, page: hold.page, phase: "release" },
    { quiet: true, keepalive: true });
}

function releaseAll() {
  for (const key of [...holds.keys()]) holdUp(key);
}
window.addEventListener("pagehide", releaseAll);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") releaseAll();
});

function holdButton(page, index, button) {
  const key = `${page}:${index}`;
  button.classList.add("hold");
  button.dataset.slot = key;
  heldLook(button, holds.has(key));
  button.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    button.setPointerCapture(event.pointerId);
    holdDown(page, index, button);
    // The window hears the pointer come up even when a re-render replaced this tile.
    const up = (e) => {
      if (e.pointerId === event.pointerId) holdUp(key);
    };
    window.addEventListener("pointerup", up, true);
    window.addEventListener("pointercancel", up, true);
    const hold = holds.get(key);
    if (hold) {
      hold.stop = () => {
        window.removeEventListener("pointerup", up, true);
        window.removeEventListener("pointercancel", up, true);
      };
    }
  });
  button.addEventListener("lostpointercapture", () => holdUp(key));
  button.addEventListener("contextmenu", (event) => event.preventDefault());
  button.addEventListener("keydown", (event) => {
    if ((event.key === " " || event.key === "Enter") && !event.repeat) {
      event.preventDefault();
      holdDown(page, index, button);
    }
  });
  button.addEventListener("keyup", (event) => {
    if (event.key === " " || event.key === "Enter") holdUp(key);
  });
  button.addEventListener("blur", () => holdUp(key));
}

function slotButton(page, index, macro) {
  if (!macro || macro.type === "none" || !macro.type) {
    return h("div", { class: "slot empty" }, h("span", { "aria-hidden": "true" }, "Empty"),
      h("span", { class: "sr-only" }, `Empty slot ${index + 1}`));
  }
  const name = typeof macro.name === "string" && macro.name.trim() !== "" ? macro.name : `Slot ${index + 1}`;
  const button = h("button", { type: "button", class: "slot" },
    h("span", { class: "slot-name" }, name),
    h("span", { class: "slot-kind", "aria-hidden": "true" }, KIND_WORDS[macro.type] || macro.type));
  if (running.has(`${page}:${index}`)) {
    button.setAttribute("aria-busy", "true");
    button.classList.add("is-running");
    running.set(`${page}:${index}`, button);
  }
  if (HOLD_KINDS.has(macro.type)) holdButton(page, index, button);
  else button.addEventListener("click", () => trigger(page, index, macro, button));
  return button;
}

function selectTab(page, { focus = false } = {}) {
  viewed = page;
  render();
  if (focus) document.getElementById(`macro-tab-${page}`).focus();
}

function onTabKey(event) {
  const order = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  const shown = viewed ?? currentPage();
  let next = null;
  if (event.key in order) next = (shown + order[event.key] + PAGE_COUNT) % PAGE_COUNT;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = PAGE_COUNT - 1;
  if (next === null) return;
  event.preventDefault();
  selectTab(next, { focus: true });
}

function render() {
  const container = document.getElementById("macros");
  if (!macroSet) {
    container.replaceChildren(absent("Macros are loading…"));
    return;
  }
  const device = currentPage();
  const shown = viewed ?? device;
  const focusedTab = document.activeElement && document.activeElement.getAttribute("role") === "tab";

  const tabs = [];
  for (let page = 0; page < PAGE_COUNT; page += 1) {
    const selected = page === shown;
    const tab = h("button", {
      type: "button", role: "tab", id: `macro-tab-${page}`, class: "tab",
      "aria-selected": selected ? "true" : "false", "aria-controls": "macro-panel",
      tabindex: selected ? "0" : "-1",
      "aria-current": page === device ? "true" : null,
      "aria-describedby": page === device ? "macro-on-device" : null,
    }, h("span", { class: "tab-name" }, pageName(page)),
    page === device ? h("span", { class: "device-dot", "aria-hidden": "true" }) : null);
    tab.addEventListener("click", () => selectTab(page));
    tab.addEventListener("keydown", onTabKey);
    tabs.push(tab);
  }
  const tablist = h("div", { class: "tabs", role: "tablist", "aria-label": "Macro pages" }, ...tabs);
  const panel = h("div", {
    class: "slots", role: "tabpanel", id: "macro-panel", "aria-labelledby": `macro-tab-${shown}`,
  }, ...slotsOf(shown).map((macro, index) => slotButton(shown, index, macro)));
  const note = h("p", { class: "hint device-note" },
    h("span", { class: "device-dot", "aria-hidden": "true" }),
    h("span", { id: "macro-on-device" }, "On the device now"),
    shown === device ? "" : ` (${pageName(device)})`);
  container.replaceChildren(tablist, note, panel);
  if (focusedTab) document.getElementById(`macro-tab-${shown}`).focus();
}

/** Shows a Macro page set. `fresh` (a whole new state, e.g. after a reconnect) forgets the
 *  macros this page saw start: their outcome may have been sent while the link was down. */
export function renderMacros(set, { fresh = false } = {}) {
  if (fresh) running.clear();
  macroSet = set && typeof set === "object" ? set : null;
  render();
}

export function onMacroPageChange({ page }) {
  if (!macroSet) return;
  const followed = viewed === null || viewed === currentPage();
  macroSet.current_page = Number(page);
  if (followed) viewed = null; // a viewer who was on the device's page keeps following it
  render();
}

/** One slot changed (an edit): {page, index, macro}. */
export function onMacroChange({ page, index, macro }) {
  if (!macroSet || !macroSet.pages) return;
  const key = String(page);
  const slot = Number(index);
  if (!Array.isArray(macroSet.pages[key]) || !Number.isInteger(slot) || slot < 0 || slot >= SLOT_COUNT) return;
  macroSet.pages[key][slot] = macro && typeof macro === "object" ? macro : { type: "none" };
  render();
}

/** A page was renamed: {page, name}. */
export function onMacroPageNameChange({ page, name }) {
  if (!macroSet) return;
  macroSet.page_names = { ...(macroSet.page_names || {}), [String(page)]: name };
  render();
}

export function onMacroExecuted(result) {
  const key = `${result.page}:${result.index}`;
  const button = running.get(key);
  running.delete(key);
  if (button) {
    button.removeAttribute("aria-busy");
    button.classList.remove("is-running");
    button.classList.add(result.ok ? "ran-ok" : "ran-failed");
    setTimeout(() => button.classList.remove("ran-ok", "ran-failed"), 1200);
  }
  const name = result.name || `Slot ${Number(result.index) + 1}`;
  if (result.ok) announce(`${name} ran.`);
  else if (button) showError(`${name} failed: ${result.error || "unknown error"}`);
  else announce(`${name} failed: ${result.error || "unknown error"}`);
}
