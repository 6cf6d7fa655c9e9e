// The settings area's views, in tab order. A view is {name, title, claims, build(context)}:
//   claims   the top-level settings.json keys it edits with an editor of its own; the generic
//            form (the "Other settings" view) leaves them out;
//   build    draws the view from the context area.js gives (schema, settings, auth, authEnabled,
//            onSaved(settings) after a save, onChanged(settings) after a rollback or import) and
//            answers {element, refresh?(), show?(settings), saved?(settings)}: refresh() runs
//            whenever its tab is selected, show() puts restored settings in it, saved() hears
//            another view's save.
// A capability whose settings need no special editor adds no view: its keys appear in the
// generic form from the schema alone.
import { buildBackup } from "./backup.js";
import { buildForm } from "./form.js";
import { buildHistory } from "./history.js";
import { buildMacros } from "./macros-view.js";
import { buildProfiles } from "./profiles-view.js";
import { buildSliders } from "./sliders-view.js";
import { buildIntegrations } from "./integrations.js";
import { buildSecurity } from "./security.js";
import { buildPlugins } from "./plugins.js";
import { buildDevice } from "./device.js";

export const VIEWS = [
  { name: "sliders", title: "Sliders", claims: ["sliders"], build: (context) => buildSliders(context) },
  { name: "macros", title: "Macros", claims: [], build: (context) => buildMacros(context) },
  { name: "profiles", title: "Profiles", claims: [], build: (context) => buildProfiles(context) },
  {
    name: "integrations", title: "Integrations", claims: ["smarthome", "stream", "mqtt", "mdns"],
    build: (context) => buildIntegrations(context),
  },
  {
    name: "security", title: "Security",
    claims: ["auth_enabled", "auth_username", "auth_password_hash", "session_timeout",
      "session_max_lifetime", "toast_handlers"],
    build: (context) => buildSecurity(context),
  },
  {
    name: "plugins", title: "Plugins", claims: ["plugins"],
    build: (context) => buildPlugins(context),
  },
  {
    name: "device", title: "Device", claims: ["serial_port", "device_brightness"],
    build: (context) => buildDevice(context),
  },
  {
    name: "options", title: "Other settings", claims: [],
    build: (context) => buildForm(context.schema, context.settings, context),
  },
  {
    name: "history", title: "History", claims: [],
    build: (context) => buildHistory(context),
  },
  { name: "backup", title: "Backup", claims: [], build: (context) => buildBackup(context) },
];

/** Every key a view other than the generic form edits. */
export function claimedKeys() {
  return new Set(VIEWS.flatMap((view) => view.claims));
}
