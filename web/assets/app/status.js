// The link states in the header (daemon and device, role="status") and the Status section.
import { h } from "./dom.js";

let status = {};
let audio = { connected: false, server: "" };
// The facts other capabilities show here, by source (the status_facts event).
let extraFacts = {};

function setLink(id, text, state) {
  const element = document.getElementById(id);
  if (element.textContent !== text) element.textContent = text;
  element.dataset.state = state;
}

export function setDaemonState(state) {
  if (state === "connected") setLink("daemon-state", "Daemon connected", "up");
  else if (state === "connecting") setLink("daemon-state", "Daemon connecting…", "pending");
  else setLink("daemon-state", "Daemon reconnecting…", "down");
  document.body.classList.toggle("is-offline", state !== "connected");
  // Only the daemon knows the device link: without it the last state may be stale.
  if (state !== "connected") setLink("device-state", "Device state unknown", "pending");
}

function renderDevice() {
  if (status.connected) setLink("device-state", "Device connected", "up");
  else setLink("device-state", "Device disconnected", "down");
}

function renderFacts() {
  const facts = [
    ["Device", status.connected ? `Connected${status.port ? ` on ${status.port}` : ""}` : "Disconnected"],
    ["Firmware", status.firmware_version || "Not reported"],
    ["Audio server", audio.connected ? (audio.server || "Connected") : "Not connected"],
    ["mixerd", status.app_version ? `Version ${status.app_version}` : "Unknown"],
    ...Object.values(extraFacts).flat().map(({ label, value }) => [label, value]),
  ];
  document.getElementById("status").replaceChildren(...facts.flatMap(([term, value]) =>
    [h("dt", {}, term), h("dd", {}, value)]));
}

export function renderStatus(state) {
  status = { ...(state.status || {}) };
  if (typeof state.connected === "boolean") status.connected = state.connected;
  audio = { connected: Boolean(status.audio_connected), server: audio.server };
  extraFacts = {};
  for (const [source, facts] of Object.entries(state.status_facts || {}))
    if (Array.isArray(facts)) extraFacts[source] = facts;
  renderDevice();
  renderFacts();
}

export function onDeviceStatus({ connected, port }) {
  status.connected = Boolean(connected);
  if (port) status.port = port;
  renderDevice();
  renderFacts();
}

export function onAudioStatus({ connected, server }) {
  audio = { connected: Boolean(connected), server: server || "" };
  renderFacts();
}

export function onStatusFacts({ source, facts }) {
  if (typeof source !== "string" || !Array.isArray(facts)) return;
  extraFacts[source] = facts;
  renderFacts();
}
