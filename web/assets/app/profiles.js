// Audio profiles: one button per profile, "Load <name>"; the current one is marked. Loading is
// POST /api/profiles/load; the sliders, mutes and macros follow through their own events.
import { h, absent, announce } from "./dom.js";
import { api, tryApi } from "./net.js";

let listing = { profiles: [], current: null };
let loading = null; // name of the profile being loaded

function render() {
  const container = document.getElementById("profiles");
  const profiles = Array.isArray(listing.profiles) ? listing.profiles : [];
  if (!profiles.length) {
    container.replaceChildren(absent("No profiles yet", "The daemon makes one called Default on its first start."));
    return;
  }
  const items = profiles.map((profile) => {
    const current = profile.name === listing.current;
    const broken = typeof profile.error === "string" && profile.error !== "";
    const button = h("button", {
      type: "button", class: "profile", "aria-label": `Load ${profile.name}`,
      "aria-current": current ? "true" : null,
      "aria-busy": loading === profile.name ? "true" : null,
      disabled: broken,
      "aria-describedby": broken ? `profile-error-${profiles.indexOf(profile)}` : null,
    }, h("span", { class: "profile-name" }, profile.name),
    current ? h("span", { class: "badge", "aria-hidden": "true" }, "Current") : null);
    button.addEventListener("click", () => load(profile.name));
    return h("li", {}, button, broken
      ? h("p", { class: "field-error", id: `profile-error-${profiles.indexOf(profile)}` },
        `Broken on disk: ${profile.error}`) : null);
  });
  container.replaceChildren(h("ul", { class: "profile-list", role: "list" }, ...items));
}

async function load(name) {
  loading = name;
  render();
  const answer = await tryApi("POST", "/api/profiles/load", { name });
  loading = null;
  if (answer) {
    listing.current = name;
    announce(`Profile ${name} loaded.`);
  }
  render();
}

export function renderProfiles(profiles) {
  listing = profiles && typeof profiles === "object" ? { ...profiles } : { profiles: [], current: null };
  render();
}

export async function onProfileChange({ profile }) {
  listing.current = profile;
  render();
  // A profile saved by another client appears only in a fresh listing.
  const fresh = await api("GET", "/api/profiles", undefined, { quiet: true }).catch(() => null);
  if (fresh) renderProfiles(fresh);
}
