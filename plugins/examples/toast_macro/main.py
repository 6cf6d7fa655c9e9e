"""Toast macro: registers the macro type `toast_text`.

A macro slot such as

    {"type": "plugin", "plugin_type": "toast_text", "name": "Hello",
     "title": "Break time", "text": "Stand up and stretch"}

shows `title` (else the macro's name) and `text` on the device when its button is pressed or it
is triggered through the API. Every run is counted in the plugin's setting `runs`.
"""
from mixerd import Plugin

TITLE_MAX = 30
TEXT_MAX = 40


class ToastMacro(Plugin):
    def on_load(self):
        self.register_macro_type("toast_text", self.run_toast_text)

    def run_toast_text(self, macro):
        """The handler of a `toast_text` macro: True when the device showed it."""
        title = str(macro.get("title") or macro.get("name") or "Macro")[:TITLE_MAX]
        text = str(macro.get("text", ""))[:TEXT_MAX]
        runs = self.get_setting("runs", 0) + 1
        self.set_setting("runs", runs)
        self.log(f"toast_text macro {title!r} (run {runs})")
        return self.show_notification(title, text)
