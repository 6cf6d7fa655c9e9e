// The live state as the page's Socket.IO connection last told it: the last initial_state with
// the link events since applied. main.js hands every event here; the settings area (loaded
// later) reads the links' states from it and follows the events as window events
// "mixerd:<name>", without a connection of its own.
let state = null;

const LINKS = { smarthome_status: "smarthome", stream_status: "stream" };

export function remember(name, payload) {
  if (name === "initial_state" && payload && typeof payload === "object") state = payload;
  else if (state && LINKS[name] && payload && typeof payload === "object") {
    state[LINKS[name]] = { ...(state[LINKS[name]] || {}), ...payload };
  } else if (state && name === "status_facts" && payload && typeof payload.source === "string") {
    state.status_facts = { ...(state.status_facts || {}), [payload.source]: payload.facts };
  }
  window.dispatchEvent(new CustomEvent(`mixerd:${name}`, { detail: payload }));
}

/** The last state (docs/api.md 3.4) with the link events applied, or null before the first. */
export function liveState() {
  return state;
}
