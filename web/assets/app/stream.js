// Streaming (OBS): live/recording state, the scenes (the program scene pressed) and the sources
// of the program scene (show / hide: the API does not report a source's visibility).
import { h, absent, announce } from "./dom.js";
import { api, tryApi } from "./net.js";

let stream = { connected: false, streaming: false, recording: false, scenes: [], current: null, sources: [] };

function render() {
  const container = document.getElementById("stream");
  if (!stream.connected) {
    container.replaceChildren(absent("OBS is not connected",
      "Start OBS with its WebSocket server on; mixerd connects by itself."));
    return;
  }
  const flags = h("p", { class: "stream-flags" },
    h("span", { class: `flag${stream.streaming ? " is-live" : ""}` }, stream.streaming ? "Live" : "Not streaming"),
    h("span", { class: `flag${stream.recording ? " is-recording" : ""}` }, stream.recording ? "Recording" : "Not recording"));
  const scenes = (stream.scenes || []).map((scene) => {
    const button = h("button", {
      type: "button", class: "chip", "aria-pressed": scene === stream.current ? "true" : "false",
    }, scene);
    button.addEventListener("click", async () => {
      const answer = await tryApi("POST", "/api/stream/scene", { scene_name: scene });
      if (answer) {
        stream.current = scene;
        render();
        refreshSources();
      }
    });
    return button;
  });
  const sources = (stream.sources || []).map((source) => {
    const show = h("button", { type: "button", class: "chip small", "aria-label": `Show ${source}` }, "Show");
    const hide = h("button", { type: "button", class: "chip small", "aria-label": `Hide ${source}` }, "Hide");
    const act = (visible) => async () => {
      const answer = await tryApi("POST", "/api/stream/source", { source_name: source, visible });
      if (answer) announce(`${source} ${visible ? "shown" : "hidden"}.`);
    };
    show.addEventListener("click", act(true));
    hide.addEventListener("click", act(false));
    return h("li", { class: "source" }, h("span", { class: "source-name" }, source), h("span", { class: "source-buttons" }, show, hide));
  });
  container.replaceChildren(flags,
    h("h3", { id: "scenes-heading" }, "Scenes"),
    scenes.length ? h("div", { class: "chips", role: "group", "aria-labelledby": "scenes-heading" }, ...scenes)
      : h("p", { class: "hint" }, "OBS lists no scenes."),
    h("h3", { id: "sources-heading" }, "Sources in the program scene"),
    sources.length ? h("ul", { class: "source-list", role: "list", "aria-labelledby": "sources-heading" }, ...sources)
      : h("p", { class: "hint" }, "The program scene has no sources."));
}

async function refreshSources() {
  const answer = await api("GET", "/api/stream/sources", undefined, { quiet: true }).catch(() => null);
  if (answer && Array.isArray(answer.sources)) {
    stream.sources = answer.sources;
    render();
  }
}

async function refreshScenes() {
  const answer = await api("GET", "/api/stream/scenes", undefined, { quiet: true }).catch(() => null);
  if (answer && Array.isArray(answer.scenes)) {
    stream.scenes = answer.scenes;
    stream.current = answer.current;
    render();
  }
}

export function renderStream(state) {
  stream = { connected: false, scenes: [], sources: [], current: null, ...(state || {}) };
  render();
}

export function onStreamChange({ scene }) {
  stream.current = scene;
  if (stream.connected && !(stream.scenes || []).includes(scene)) refreshScenes();
  render();
  if (stream.connected) refreshSources();
}

export function onStreamStatus({ connected, streaming, recording }) {
  const cameUp = connected && !stream.connected;
  stream.connected = Boolean(connected);
  stream.streaming = Boolean(streaming);
  stream.recording = Boolean(recording);
  if (!stream.connected) Object.assign(stream, { scenes: [], sources: [], current: null });
  render();
  if (cameUp) {
    refreshScenes();
    refreshSources();
  }
}
