// Now playing: the active MPRIS player's track and status. Read only (the media macros control
// the player). Cover art is not shown: its URL points outside the page's origin.
import { h, absent } from "./dom.js";

function duration(ms) {
  const seconds = Math.round(Number(ms) / 1000);
  if (!Number.isFinite(seconds) || seconds <= 0) return "";
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

let music = { connected: false, state: null };

function render() {
  const container = document.getElementById("music");
  if (!music.connected) {
    container.replaceChildren(absent("No music player",
      "The daemon cannot reach the desktop's session bus, so it sees no players."));
    return;
  }
  const state = music.state;
  if (!state) {
    container.replaceChildren(absent("No music player", "Start a player (Spotify, mpv, a browser tab…) and it shows here."));
    return;
  }
  const status = ["Playing", "Paused", "Stopped"].includes(state.status) ? state.status : "Stopped";
  const length = duration(state.length_ms);
  container.replaceChildren(h("div", { class: `now-playing is-${status.toLowerCase()}` },
    h("p", { class: "track-title" }, state.title || "Unknown title"),
    state.artist ? h("p", { class: "track-artist" }, state.artist) : null,
    state.album ? h("p", { class: "track-album" }, state.album) : null,
    h("p", { class: "track-meta" },
      h("span", { class: "play-state" }, status),
      h("span", {}, ` · ${state.player || "Player"}`),
      length ? h("span", {}, ` · ${length}`) : null)));
}

export function renderMusic(state) {
  music = state && typeof state === "object" ? { connected: Boolean(state.connected), state: state.state || null }
    : { connected: false, state: null };
  render();
}

export function onMusicChange(state) {
  music.connected = true;
  music.state = state || null;
  render();
}
