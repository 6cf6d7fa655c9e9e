// The web controller's entry point: one Socket.IO connection to the daemon that served the page.
// initial_state renders everything (again after every reconnect); the events of docs/api.md
// section 3.2 update the parts.
import { io } from "/assets/vendor/socket.io.esm.min.js";
import { api, goToLogin } from "./net.js";
import { showError, clearError } from "./dom.js";
import { setupSliders, renderMixer, onSliderChange, onAssignmentChange, onMuteChange, onVolumeChange } from "./sliders.js";
import { renderMacros, onMacroPageChange, onMacroExecuted, onMacroChange, onMacroPageNameChange } from "./macros.js";
import { renderProfiles, onProfileChange } from "./profiles.js";
import { renderSmarthome, onSmarthomeChange, onSmarthomeStatus } from "./smarthome.js";
import { renderStream, onStreamChange, onStreamStatus } from "./stream.js";
import { renderMusic, onMusicChange } from "./music.js";
import { setDaemonState, renderStatus, onDeviceStatus, onAudioStatus, onStatusFacts } from "./status.js";
import { setupSettingsEntry } from "./settings-entry.js";
import { remember } from "./live-state.js";

function renderAll(state) {
  if (!state || typeof state !== "object") return;
  renderStatus(state);
  renderMixer(state);
  renderMacros(state.macros, { fresh: true });
  renderProfiles(state.profiles);
  renderSmarthome(state.smarthome);
  renderStream(state.stream);
  renderMusic(state.music);
}

/** Runs an event handler so that one bad payload cannot stop the others. */
function guarded(handler) {
  return (payload) => {
    try {
      // null stays null: it means something (music_change: no player).
      const result = handler(payload === undefined ? {} : payload);
      if (result && typeof result.catch === "function") result.catch((error) => showError(String(error.message || error)));
    } catch (error) {
      showError(`Could not show an update: ${error.message || error}`);
    }
  };
}

function connect() {
  // auth.events: this page reads the per-slot macro events, so an edit does not send it the
  // whole macro set again (docs/api.md section 3).
  const socket = io({
    withCredentials: true,
    reconnectionDelayMax: 5000,
    auth: { events: ["macro_change", "macro_page_name_change"] },
  });
  setDaemonState("connecting");
  socket.on("connect", () => {
    setDaemonState("connected");
    clearError();
  });
  socket.on("disconnect", (reason) => {
    setDaemonState("reconnecting");
    // The client retries by itself after a lost transport, but not after the server ended the
    // session (a daemon that stops cleanly may say goodbye first): retry then too.
    if (reason === "io server disconnect") setTimeout(() => socket.connect(), 1000);
  });
  socket.io.on("reconnect_attempt", () => setDaemonState("reconnecting"));
  socket.on("connect_error", (error) => {
    if (error && error.message === "Authentication required") {
      goToLogin();
      return;
    }
    setDaemonState("reconnecting");
  });

  socket.on("initial_state", guarded(renderAll));
  socket.on("slider_change", guarded(onSliderChange));
  socket.on("assignment_change", guarded(onAssignmentChange));
  socket.on("mute_change", guarded(onMuteChange));
  socket.on("volume_change", guarded(onVolumeChange));
  socket.on("device_status", guarded(onDeviceStatus));
  socket.on("audio_status", guarded(onAudioStatus));
  socket.on("status_facts", guarded(onStatusFacts));
  socket.on("macro_executed", guarded(onMacroExecuted));
  socket.on("macro_page_change", guarded(onMacroPageChange));
  socket.on("macros_change", guarded((set) => renderMacros(set)));
  socket.on("macro_change", guarded(onMacroChange));
  socket.on("macro_page_name_change", guarded(onMacroPageNameChange));
  socket.on("profile_change", guarded(onProfileChange));
  socket.on("smarthome_change", guarded(onSmarthomeChange));
  socket.on("smarthome_status", guarded(onSmarthomeStatus));
  socket.on("stream_change", guarded(onStreamChange));
  socket.on("stream_status", guarded(onStreamStatus));
  socket.on("music_change", guarded(onMusicChange));
  // The settings area shows the links' states and follows them through this connection.
  socket.onAny(remember);
  return socket;
}

async function setupLogout() {
  const button = document.getElementById("logout");
  const auth = await api("GET", "/api/auth/status", undefined, { quiet: true }).catch(() => null);
  if (!auth || !auth.auth_enabled) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    await api("POST", "/api/auth/logout", undefined, { quiet: true }).catch(() => null);
    goToLogin();
  });
}

setupSliders();
connect();
setupLogout();
setupSettingsEntry();
