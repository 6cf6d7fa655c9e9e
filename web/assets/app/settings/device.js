// The Device view: the mixer's link (connected or not, on which port, its firmware) as
// GET /api/status reports it and the device_status event updates it, and the device's settings:
// its serial port (read at start) and its screen brightness (sent to the device at once).
import { h } from "../dom.js";
import { api } from "../net.js";
import { fieldFor } from "./fields.js";
import { UNCHANGED } from "./frame.js";
import { actions, card, changesOf, follow, savePatch, statusLine } from "./live.js";

const KEYS = ["serial_port", "device_brightness"];

/** Builds the view; answers {element, refresh, show, saved} (views.js). */
export function buildDevice(context) {
  const state = h("p", { class: "link-state", id: "device-link-state", role: "status" });
  const facts = h("dl", { class: "device-facts", id: "device-facts" });
  const link = card("device-link-heading", "Link", state, facts);

  const keys = KEYS.filter((key) => context.schema.properties?.[key]);
  const fields = keys.map((key) => fieldFor(key, context.schema.properties[key]));
  const status = statusLine("device-settings-status");
  const { button, row } = actions("Save", "device settings", status);
  const form = h("form", { class: "settings-fields", novalidate: true }, ...fields.map((field) => field.element), row);
  const settingsCard = card("device-settings-heading", "Settings",
    h("p", { class: "field-hint" }, keys.includes("device_brightness")
      ? "The brightness reaches the device at once; a new serial port takes effect when mixerd "
        + "starts again (--serial on its command line beats it)."
      : "A new serial port takes effect when mixerd starts again (--serial on its command line beats it)."),
    form);

  function showStatus(status) {
    const connected = Boolean(status && status.connected);
    state.dataset.state = connected ? "up" : "down";
    state.textContent = connected ? `Connected${status.port ? ` on ${status.port}` : ""}.`
      : "Not connected: plug the mixer in; mixerd finds it again by itself.";
    const rows = [
      ["Port", (status && status.port) || "None"],
      ["Firmware", (status && status.firmware_version) || "Not reported"],
      ["Screen shown", (status && status.page) || "Not reported"],
    ];
    facts.replaceChildren(...rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]));
  }
  async function refresh() {
    try {
      showStatus(await api("GET", "/api/status", undefined, { quiet: true }));
    } catch (failure) {
      state.dataset.state = "down";
      state.textContent = `The device's state could not be read: ${failure.message}`;
    }
  }
  // The event says connected and port only; the firmware comes with the status.
  follow(["device_status"], () => refresh(), link);

  const reset = (settings, { keepEdits = false } = {}) => {
    for (const field of fields) if (!keepEdits || field.change() === UNCHANGED) field.reset(settings[field.key]);
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const saved = await savePatch({
      fields, status, button, context, patch: () => changesOf(fields), saved: "Device settings saved.",
    });
    if (saved) reset(saved);
  });
  reset(context.settings);
  const element = h("div", { class: "settings-groups" }, link, fields.length ? settingsCard : null);
  return {
    element,
    refresh,
    show: (values) => reset(values),
    saved: (values) => reset(values, { keepEdits: true }),
  };
}
