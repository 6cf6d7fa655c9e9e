"""Slider alerts: reacts to the sliders and the encoder.

- A slider that rises past `threshold` (a setting, 90 unless changed) shows "Slider <n> loud" on
  the device; it alerts again only after the slider went below the threshold.
- Encoder turns are added up and logged; pressing the encoder logs the total and resets it.
"""
from mixerd import Plugin


class SliderAlerts(Plugin):
    def on_load(self):
        self.threshold = self.get_setting("threshold")
        self.alerts = self.get_setting("alerts")
        # Per slider (1-4): was it at or above the threshold after its last change?
        self.loud = {index: self.get_slider_value(index) >= self.threshold for index in range(1, 5)}
        self.turns = 0

    def on_slider_change(self, index, value):
        was_loud, self.loud[index] = self.loud[index], value >= self.threshold
        if self.loud[index] and not was_loud:
            self.log(f"slider {index} rose to {value} (threshold {self.threshold})")
            if self.alerts:
                self.show_notification(f"Slider {index} loud", f"{value} is over {self.threshold}")

    def on_encoder_turn(self, direction):
        self.turns += direction
        self.log(f"encoder turned {direction:+d} (total {self.turns:+d})", level="debug")

    def on_encoder_press(self, press_type):
        if press_type == "press":
            self.log(f"encoder pressed after {self.turns:+d} detents")
            self.turns = 0

    def on_settings_change(self, key, value):
        # settings.json was edited and mixerd reloaded it (SIGHUP); None: the key was removed.
        if key == "threshold":
            self.threshold = self.get_setting("threshold")
        elif key == "alerts":
            self.alerts = self.get_setting("alerts")
