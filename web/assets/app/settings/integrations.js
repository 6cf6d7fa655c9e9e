// The Integrations view: Home Assistant (smarthome), OBS (stream), MQTT (mqtt) and mDNS (mdns),
// each a card with its live state and its settings. The states are read when the tab is opened
// (GET /api/smarthome; OBS's from the page's live state, since its routes answer 400 while it is
// not connected; MQTT's from the facts of the Status section) and then follow the live events
// (smarthome_status, stream_status, status_facts); mDNS reports no state, so its card says what
// is configured. Secrets (the token, the passwords) are write-only: the field shows
// whether one is set (secret.js). Each card saves its own key with PATCH /api/settings.
import { h } from "../dom.js";
import { api } from "../net.js";
import { liveState } from "../live-state.js";
import { fieldFor } from "./fields.js";
import { UNCHANGED } from "./frame.js";
import { actions, card, changesOf, follow, savePatch, statusLine } from "./live.js";

const UP = "up";
const DOWN = "down";
const OFF = "off";

/** What a link-state read answers: true (connected), false, or null (not in this build). */
async function linkOf(path, isUp) {
  try {
    return isUp(await api("GET", path, undefined, { quiet: true }));
  } catch (failure) {
    return failure.status === 400 ? false : null;
  }
}

/** The MQTT fact's text ("Connected to mqtt://… as node desk"), or null when none is shown. */
function mqttFact(facts) {
  const fact = Array.isArray(facts) ? facts.find((one) => one && one.label === "MQTT") : null;
  return fact && typeof fact.value === "string" ? fact.value : null;
}

const INTEGRATIONS = [
  {
    key: "smarthome", title: "Home Assistant", order: ["url", "token", "entities", "verify_tls"],
    about: "Switch lights and devices from the page and from macros. Make a long-lived access token "
      + "in Home Assistant (your profile, Security) and paste it here.",
    events: ["smarthome_status"],
    read: () => linkOf("/api/smarthome", (answer) => Boolean(answer && answer.connected)),
    fromEvent: (payload) => Boolean(payload && payload.connected),
    words(settings, connected) {
      const url = settings.smarthome && settings.smarthome.url;
      if (!url) return [OFF, "Not set up: enter Home Assistant's URL and a token."];
      if (connected === null) return [OFF, "This mixerd has no smart-home support."];
      return connected ? [UP, `Connected to Home Assistant at ${url}.`]
        : [DOWN, "Not connected. mixerd keeps trying; check the URL and the token (mixerd's log says why)."];
    },
  },
  {
    key: "stream", title: "OBS Studio", order: ["url", "password"],
    about: "Switch scenes and sources. In OBS, turn on Tools, WebSocket Server Settings; its "
      + "address and password go here.",
    events: ["stream_status"],
    read: async () => Boolean(liveState()?.stream?.connected),
    fromEvent: (payload) => Boolean(payload && payload.connected),
    words(settings, connected) {
      const url = (settings.stream && settings.stream.url) || "ws://127.0.0.1:4455";
      return connected ? [UP, `Connected to OBS at ${url}.`]
        : [DOWN, `Not connected to ${url}. Is OBS running with its WebSocket server on? mixerd keeps trying.`];
    },
  },
  {
    key: "mqtt", title: "MQTT",
    order: ["url", "username", "password", "node_id", "discovery_prefix", "commands"],
    about: "Shows the mixer in Home Assistant through an MQTT broker (discovery), and takes "
      + "commands from it unless Commands is off.",
    // The link comes as a fact of the Status section (status_facts, source "mqtt").
    events: ["status_facts"],
    read: async () => mqttFact(liveState()?.status_facts?.mqtt),
    fromEvent: (payload) => (payload && payload.source === "mqtt" ? mqttFact(payload.facts) : undefined),
    words(settings, fact) {
      const url = settings.mqtt && settings.mqtt.url;
      if (!url) return [OFF, "Off: enter a broker URL to turn it on."];
      if (!fact) return ["pending", `On: waiting for the broker at ${url}.`];
      const kind = fact.startsWith("Connected") ? UP : fact.startsWith("Connecting") ? "pending" : DOWN;
      return [kind, `${fact}.`];
    },
  },
  {
    key: "mdns", title: "mDNS",
    about: "Lets phones and apps on the network find this mixer by name, without its address.",
    words(settings) {
      return settings.mdns === false ? [OFF, "Off: the mixer is not advertised on the network."]
        : [UP, "On: advertised as “mixerd on <host name>” while an Avahi daemon runs on the machine."];
    },
  },
];

/** The fields of one key: its members for an object with properties (those named in `order`
 *  first, in that order), else the key itself. */
function fieldsOf(key, schema, order = []) {
  if (schema.type === "object" && schema.properties) {
    const rank = (name) => (order.includes(name) ? order.indexOf(name) : order.length);
    return Object.entries(schema.properties).filter(([, member]) => !member["x-live"])
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([name, member]) => fieldFor(`${key}.${name}`, member));
  }
  return [fieldFor(key, schema)];
}

function buildIntegration(integration, schema, context, current) {
  const { key, title } = integration;
  const id = `integration-${key}`;
  const member = schema.properties[key];
  const fields = fieldsOf(key, member, integration.order);
  const nested = member.type === "object" && Boolean(member.properties);
  const state = h("p", { class: "link-state", id: `${id}-state`, role: "status" });
  const status = statusLine(`${id}-status`);
  const { button, row } = actions("Save", `${title} settings`, status);
  const form = h("form", { class: "settings-fields", novalidate: true },
    ...fields.map((field) => field.element), row);
  const element = card(`${id}-heading`, title, state,
    h("p", { class: "field-hint" }, integration.about), form);
  let connected = false;

  const show = () => {
    const [kind, text] = integration.words(current(), connected);
    state.dataset.state = kind;
    state.textContent = text;
  };
  const reset = (settings, { keepEdits = false } = {}) => {
    const values = nested ? (settings[key] && typeof settings[key] === "object" ? settings[key] : {}) : null;
    for (const field of fields) {
      if (keepEdits && field.change() !== UNCHANGED) continue;
      field.reset(nested ? values[field.key] : settings[key]);
    }
    show();
  };
  const patch = () => {
    if (!nested) {
      const change = fields[0].change();
      return change === UNCHANGED ? null : { [key]: change };
    }
    const changes = changesOf(fields);
    return changes ? { [key]: changes } : null;
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const settings = await savePatch({ fields, patch, status, button, context, saved: `${title} settings saved.` });
    if (!settings) return;
    reset(settings); // this card's fields show what is saved now (saved() kept them as edits)
    if (integration.read) refresh();
  });
  let heard = 0; // events heard: a read that an event overtook is older than the event
  async function refresh() {
    if (!integration.read) return show();
    const before = heard;
    const read = await integration.read();
    if (heard === before) connected = read;
    show();
  }
  if (integration.events) {
    follow(integration.events, (payload) => {
      const next = integration.fromEvent(payload);
      if (next === undefined) return; // another source's event
      heard += 1;
      connected = next;
      show();
    }, element);
  }
  return { element, reset, refresh, show };
}

/** Builds the view; answers {element, refresh, show, saved} (views.js). */
export function buildIntegrations(context) {
  let settings = context.settings;
  const current = () => settings;
  const cards = INTEGRATIONS.filter((integration) => context.schema.properties?.[integration.key])
    .map((integration) => buildIntegration(integration, context.schema, context, current));
  cards.forEach((one) => one.reset(settings));
  const element = cards.length
    ? h("div", { class: "settings-groups" }, ...cards.map((one) => one.element))
    : h("p", { class: "hint" }, "This mixerd has no integrations.");
  return {
    element,
    refresh: () => Promise.all(cards.map((one) => one.refresh())),
    show(values) {
      settings = values;
      cards.forEach((one) => one.reset(values));
    },
    saved(values) {
      settings = values;
      cards.forEach((one) => one.reset(values, { keepEdits: true }));
    },
  };
}
