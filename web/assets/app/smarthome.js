// Smart-home devices from Home Assistant: a toggle per device (aria-pressed when on) and, for a
// light, a brightness slider. Absent when Home Assistant is not configured or not connected.
import { h, absent, level } from "./dom.js";
import { api, tryApi } from "./net.js";
import { RangeSync } from "./range-sync.js";

let connected = false;
let devices = []; // Smart-home device objects, in the daemon's order
const rows = new Map(); // entity_id -> {row, toggle, state, sync}

function stateWords(device) {
  if (device.state === "on") {
    return device.domain === "light" && Number.isInteger(device.brightness) ? `On, ${device.brightness}%` : "On";
  }
  if (device.state === "off") return "Off";
  return device.state ? device.state.charAt(0).toUpperCase() + device.state.slice(1) : "Unknown";
}

function nameOf(device) {
  return device.friendly_name || device.entity_id;
}

function update(entry, device) {
  const on = device.state === "on";
  entry.toggle.setAttribute("aria-pressed", on ? "true" : "false");
  entry.toggle.disabled = device.state !== "on" && device.state !== "off";
  entry.name.textContent = nameOf(device);
  entry.state.textContent = stateWords(device);
  entry.row.classList.toggle("is-on", on);
  if (entry.sync) {
    entry.sync.input.setAttribute("aria-label", `${nameOf(device)} brightness`);
    entry.sync.input.disabled = entry.toggle.disabled;
    entry.sync.receive(on && Number.isInteger(device.brightness) ? device.brightness : 0);
  }
}

function buildRow(device, position) {
  const name = h("span", { class: "device-name" }, nameOf(device));
  const state = h("span", { class: "device-state", "aria-hidden": "true" });
  const toggle = h("button", { type: "button", class: "device-toggle", "aria-pressed": "false" },
    h("span", { class: "switch", "aria-hidden": "true" }), name);
  const row = h("li", { class: "device" }, h("div", { class: "device-line" }, toggle, state));
  const entry = { row, toggle, name, state, sync: null, entityId: device.entity_id };
  toggle.addEventListener("click", async () => {
    const answer = await tryApi("POST", "/api/smarthome/toggle", { entity_id: entry.entityId });
    const current = devices.find((d) => d.entity_id === entry.entityId);
    if (answer && current) {
      current.state = answer.state;
      update(entry, current);
    }
  });
  if (device.domain === "light") {
    const input = h("input", {
      type: "range", class: "brightness", min: "0", max: "100", step: "1", value: "0",
      id: `brightness-${position}`, "aria-label": `${nameOf(device)} brightness`,
    });
    entry.sync = new RangeSync(input, async (value) => {
      const answer = await tryApi("POST", "/api/smarthome/brightness", { entity_id: entry.entityId, value });
      return answer ? level(answer.brightness) : null;
    });
    row.append(input);
  }
  rows.set(device.entity_id, entry);
  update(entry, device);
  return row;
}

function render() {
  const container = document.getElementById("smarthome");
  rows.clear();
  if (!connected) {
    container.replaceChildren(absent("Home Assistant is not connected",
      "Set the smarthome url and token in settings.json; devices appear here once it connects."));
    return;
  }
  if (!devices.length) {
    container.replaceChildren(absent("No devices", "Home Assistant is connected but lists no lights or switches."));
    return;
  }
  container.replaceChildren(h("ul", { class: "device-list", role: "list" }, ...devices.map(buildRow)));
}

export function renderSmarthome(smarthome) {
  connected = Boolean(smarthome && smarthome.connected);
  devices = connected && Array.isArray(smarthome.devices) ? smarthome.devices.map((d) => ({ ...d })) : [];
  render();
}

export function onSmarthomeChange(device) {
  if (!device || !device.entity_id) return;
  const index = devices.findIndex((d) => d.entity_id === device.entity_id);
  if (index < 0) return;
  devices[index] = { ...device };
  const entry = rows.get(device.entity_id);
  if (entry) update(entry, devices[index]);
}

export async function onSmarthomeStatus({ connected: now }) {
  if (!now) {
    renderSmarthome({ connected: false, devices: [] });
    return;
  }
  const fresh = await api("GET", "/api/smarthome", undefined, { quiet: true }).catch(() => null);
  renderSmarthome(fresh || { connected: true, devices: [] });
}
