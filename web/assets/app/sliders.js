// The mixer: the 4 channel strips (label, value, vertical slider, assignment, mute) and the
// master strip (master volume and master mute).
import { h, level } from "./dom.js";
import { tryApi } from "./net.js";
import { RangeSync } from "./range-sync.js";
import { openAssignmentEditor } from "./assignment.js";

const SLIDER_COUNT = 4;
const channels = []; // index 0..3 -> {strip, input, output, name, assignment, mute, ghost, sync, slider}
let master = null;

/** What an assignment controls, in words (shown under the slider). */
export function describeAssignment(assignment) {
  switch (assignment && assignment.type) {
    case "system_default_output": return "System output";
    case "system_default_input": return "Microphone";
    case "app": {
      // "Spotify, spotify" is one application to a reader: show each name once, ignoring case.
      const seen = new Set();
      const names = (Array.isArray(assignment.names) ? assignment.names : []).filter((name) => {
        const key = String(name).toLowerCase();
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      return names.length ? `App: ${names.join(", ")}` : "App";
    }
    case "unmapped": {
      const exclude = Array.isArray(assignment.exclude) ? assignment.exclude : [];
      return exclude.length ? `Everything else but ${exclude.join(", ")}` : "Everything else";
    }
    default: return "Not assigned";
  }
}

function labelOf(slider, index) {
  return slider && typeof slider.label === "string" && slider.label.trim() !== ""
    ? slider.label : `Slider ${index + 1}`;
}

function muteIcon() {
  // Speaker with a cross; drawn by CSS colour (currentColor), hidden from assistive technology.
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "mute-icon");
  const speaker = document.createElementNS(ns, "path");
  speaker.setAttribute("d", "M4 9h4l5-4v14l-5-4H4z");
  const cross = document.createElementNS(ns, "path");
  cross.setAttribute("class", "mute-cross");
  cross.setAttribute("d", "M16 9l5 6M21 9l-5 6");
  const waves = document.createElementNS(ns, "path");
  waves.setAttribute("class", "mute-waves");
  waves.setAttribute("d", "M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12");
  svg.append(speaker, cross, waves);
  return svg;
}

function setPressed(button, pressed) {
  button.setAttribute("aria-pressed", pressed ? "true" : "false");
  button.closest(".strip").classList.toggle("is-muted", pressed);
}

function buildChannel(index) {
  const id = `slider-${index + 1}`;
  const name = h("label", { class: "strip-label", for: id }, `Slider ${index + 1}`);
  const output = h("output", { class: "strip-value", for: id, "aria-hidden": "true" }, "50");
  const input = h("input", {
    type: "range", id, class: "level", min: "0", max: "100", step: "1", value: "50",
    "aria-orientation": "vertical", "aria-describedby": `${id}-controls`,
  });
  // The slider's description (what it controls), read with its name and value; hidden, as the
  // button below already shows the same words.
  const controls = h("span", { hidden: true, id: `${id}-controls` }, "Not assigned");
  // While the daemon waits for the device's slider to be picked up: where that slider is, as a
  // mark on the track (drawn only, not a control) and as words in the slider's description.
  const ghost = h("span", { class: "ghost", id: `${id}-ghost`, "aria-hidden": "true", hidden: true });
  const pickup = h("span", { hidden: true, id: `${id}-pickup` });
  const assignment = h("button", {
    type: "button", class: "assignment", id: `${id}-assignment`,
    title: "Change what this slider controls",
  }, "Not assigned");
  const mute = h("button", {
    type: "button", class: "mute", "aria-pressed": "false", "aria-label": `Mute Slider ${index + 1}`,
  }, muteIcon(), h("span", { class: "mute-text", "aria-hidden": "true" }, "Mute"));
  const strip = h("div", { class: "strip" }, name, output,
    h("div", { class: "level-well" }, h("span", { class: "level-track" }, input, ghost)),
    controls, pickup, assignment, mute);

  const channel = { strip, input, output, name, assignment, controls, mute, ghost, pickup, slider: null };
  channel.sync = new RangeSync(input, async (value) => {
    const answer = await tryApi("POST", `/api/sliders/${index + 1}`, { value });
    return answer ? answer.value : null;
  }, (value) => { output.textContent = String(value); });

  mute.addEventListener("click", async () => {
    const answer = await tryApi("POST", `/api/mutes/${index + 1}`);
    if (answer && typeof answer.muted === "boolean") setPressed(mute, answer.muted);
  });
  assignment.addEventListener("click", () => {
    if (channel.slider) openAssignmentEditor(index + 1, channel.slider, assignment);
  });
  return channel;
}

function buildMaster() {
  const input = h("input", {
    type: "range", id: "master-volume", class: "level", min: "0", max: "100", step: "1",
    value: "50", "aria-label": "Master volume", "aria-orientation": "vertical",
  });
  const output = h("output", { class: "strip-value", for: "master-volume", "aria-hidden": "true" }, "50");
  const mute = h("button", {
    type: "button", class: "mute", "aria-pressed": "false", "aria-label": "Master mute",
  }, muteIcon(), h("span", { class: "mute-text", "aria-hidden": "true" }, "Mute"));
  const strip = h("div", { class: "strip master-strip" },
    h("label", { class: "strip-label", for: "master-volume" }, "Master"), output,
    h("div", { class: "level-well" }, input),
    h("p", { class: "assignment static" }, "Default output"), mute);
  const sync = new RangeSync(input, async (value) => {
    const answer = await tryApi("POST", "/api/volume/master", { value });
    return answer ? answer.volume : null;
  }, (value) => { output.textContent = String(value); });
  mute.addEventListener("click", async () => {
    const answer = await tryApi("POST", "/api/mutes/master");
    if (answer && typeof answer.muted === "boolean") setPressed(mute, answer.muted);
  });
  return { strip, input, output, mute, sync };
}

export function setupSliders() {
  const container = document.getElementById("strips");
  for (let index = 0; index < SLIDER_COUNT; index += 1) channels.push(buildChannel(index));
  master = buildMaster();
  container.replaceChildren(...channels.map((channel) => channel.strip), master.strip);
}

function applyLabel(channel, index, slider) {
  const label = labelOf(slider, index);
  channel.name.textContent = label;
  channel.name.title = label;
  channel.mute.setAttribute("aria-label", `Mute ${label}`);
  const text = describeAssignment(slider.assignment);
  channel.assignment.textContent = text;
  channel.controls.textContent = text;
  channel.assignment.title = `${text}: change what ${label} controls`;
  channel.assignment.setAttribute("aria-label", channel.assignment.title);
}

/** The ghost mark: shown while `pickup` is true and the device has reported a position. */
function applyPickup(channel, index) {
  const { slider, ghost, pickup, input } = channel;
  const waiting = slider && slider.pickup === true && typeof slider.position === "number";
  ghost.hidden = !waiting;
  channel.strip.classList.toggle("is-pickup", Boolean(waiting));
  if (!waiting) {
    pickup.textContent = "";
    input.setAttribute("aria-describedby", `slider-${index + 1}-controls`);
    return;
  }
  const position = level(slider.position);
  ghost.style.setProperty("--ghost", String(position / 100));
  pickup.textContent = `Hardware slider at ${position}, move it to ${level(slider.value)} to take over`;
  input.setAttribute("aria-describedby", `slider-${index + 1}-controls slider-${index + 1}-pickup`);
}

/** Renders the sliders, mutes and master volume of a State object. */
export function renderMixer(state) {
  const sliders = Array.isArray(state.sliders) ? state.sliders : [];
  const mutes = state.mutes || {};
  channels.forEach((channel, index) => {
    const slider = sliders.find((s) => s && s.index === index + 1) || sliders[index] || {};
    channel.slider = { ...slider };
    applyLabel(channel, index, slider);
    channel.sync.reset(slider.value ?? 50);
    applyPickup(channel, index);
    const individual = Array.isArray(mutes.individual) ? mutes.individual[index] : slider.muted;
    setPressed(channel.mute, Boolean(individual ?? slider.muted));
  });
  master.sync.reset(state.volume ?? 50);
  setPressed(master.mute, Boolean(mutes.master));
}

export function onSliderChange({ index, value, position, pickup }) {
  const channel = channels[Number(index) - 1];
  if (!channel) return;
  // An event without the pick-up fields (an older daemon) means no pick-up.
  channel.slider = { ...(channel.slider || {}), value: level(value), position, pickup: pickup === true };
  channel.sync.receive(value);
  applyPickup(channel, Number(index) - 1);
}

export function onAssignmentChange({ index, assignment, label }) {
  const channel = channels[Number(index) - 1];
  if (!channel) return;
  channel.slider = { ...(channel.slider || {}), assignment, label };
  applyLabel(channel, Number(index) - 1, channel.slider);
}

export function onMuteChange({ index, muted }) {
  if (index === "master") {
    setPressed(master.mute, Boolean(muted));
    return;
  }
  const channel = channels[Number(index) - 1];
  if (channel) setPressed(channel.mute, Boolean(muted));
}

export function onVolumeChange({ volume }) {
  master.sync.receive(volume);
}
