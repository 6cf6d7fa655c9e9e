"""mixerd.testing: a plugin's unit tests run it in-process against FakeMixerd, which refuses
what the daemon refuses."""
import pytest

from conftest import EXAMPLES_DIR
from mixerd import Plugin
from mixerd.testing import FakeMixerd, PluginHarness


def test_an_example_runs_in_process_and_its_effects_are_recorded():
    harness = PluginHarness.from_folder(EXAMPLES_DIR / "slider_alerts", sliders=(10, 10, 10, 10))
    assert harness.plugin.id == "io.mixerd.example.slider_alerts"
    harness.hook("on_load")
    harness.hook("on_slider_change", 2, 95)
    harness.hook("on_slider_change", 2, 96)
    assert harness.mixerd.notifications == [("Slider 2 loud", "95 is over 90")]
    assert harness.mixerd.logs == [("info", "slider 2 rose to 95 (threshold 90)")]


def test_macro_types_and_settings_through_the_harness():
    harness = PluginHarness.from_folder(EXAMPLES_DIR / "toast_macro")
    harness.hook("on_load")
    assert harness.mixerd.macro_types == ["toast_text"]
    assert harness.run_macro("toast_text", {"title": "Hi", "text": "there"}) is True
    assert harness.mixerd.settings == {"runs": 1}
    with pytest.raises(KeyError):
        harness.run_macro("other", {})


class Probe(Plugin):
    def on_macro_execute(self, macro):
        return macro.get("name") == "mine"


@pytest.mark.parametrize("method, args, error", [
    ("send_serial", [""], ValueError),
    ("send_serial", ["x" * 256], ValueError),
    ("send_serial", ["A\nB"], ValueError),
    ("trigger_macro", [9], ValueError),
    ("trigger_macro", [0, 4], ValueError),
    ("get_slider_value", [0], ValueError),
    ("get_slider_value", [True], ValueError),
    ("register_macro_type", ["has space"], ValueError),
    ("show_notification", ["", "x"], ValueError),
    ("show_notification", ["t" * 31, "x"], ValueError),
    ("show_notification", ["t", "m" * 41], ValueError),
    ("set_setting", ["unknown", 1], ValueError),
    ("set_setting", ["level", "high"], ValueError),
    ("set_setting", ["level", 11], ValueError),
    ("set_setting", ["level", True], ValueError),
    ("set_setting", ["level", float("nan")], ValueError),
    ("log", ["x", "loud"], ValueError),
])
def test_the_fake_refuses_what_the_daemon_refuses(method, args, error):
    manifest = {"id": "a.b", "settings_schema": {
        "level": {"type": "integer", "default": 5, "min": 0, "max": 10}}}
    harness = PluginHarness(Probe, manifest)
    callable_ = getattr(harness.plugin, method)
    if method == "register_macro_type":
        args = args + [lambda macro: True]
    with pytest.raises(error):
        callable_(*args)


def test_the_fake_answers_like_the_daemon():
    harness = PluginHarness(Probe, {"settings_schema": {
        "level": {"type": "number", "default": 0.5, "max": 1}}},
        mixerd=None)
    plugin, fake = harness.plugin, harness.mixerd
    assert plugin.get_setting("level") == 0.5
    assert plugin.get_setting("absent", "fallback") == "fallback"
    assert plugin.set_setting("level", 1) is True
    assert plugin.get_all_settings() == {"level": 1}
    assert plugin.trigger_macro(0) is False  # an empty slot
    fake.macros["pages"]["2"][4] = {"type": "command", "name": "x", "icon": ""}
    assert plugin.trigger_macro(4, 2) is True and fake.triggered == [(4, 2)]
    assert plugin.send_serial("PAGE,Audio") is True and fake.serial_lines == ["PAGE,Audio"]
    fake.connected = False
    assert plugin.send_serial("PAGE,Audio") is False
    assert plugin.get_device_state()["connected"] is False
    assert plugin.get_music_state() is None
    assert plugin.get_slider_value(3) == 50
    assert harness.hook("on_macro_execute", {"name": "mine"}) is True
    assert harness.hook("on_macro_execute", {"name": "x"}) is False
    assert harness.hook("on_slider_change", 1, 2) is None


def test_results_are_copies_so_a_plugin_cannot_change_the_fake_by_accident():
    fake = FakeMixerd(music={"title": "A"})
    harness = PluginHarness(Probe, mixerd=fake)
    harness.plugin.get_music_state()["title"] = "changed"
    assert fake.music == {"title": "A"}


@pytest.mark.parametrize("schema, key, value, message", [
    ({"level": {"type": "integer", "min": 0, "max": 10}}, "level", "high",
     "'level' must be an integer, not string"),
    ({"level": {"type": "integer", "min": 0, "max": 10}}, "level", 2.5,
     "'level' must be an integer, not number"),
    ({"level": {"type": "number", "min": 0.5}}, "level", 0.25, "'level' must be at least 0.5"),
    ({"level": {"type": "integer", "max": 10}}, "level", 11, "'level' must be at most 10"),
    ({"on": {"type": "boolean"}}, "on", 1, "'on' must be a boolean, not integer"),
    ({"on": {"type": "boolean"}}, "off", True, "'off' is not in the plugin's settings_schema"),
    ({}, "k" * 65, 1, "a setting's name must be 1 to 64 bytes"),
    ({}, "deep", [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]], "the value is nested deeper than 16 levels"),
    ({}, "big", "x" * 70000, "the value is over 64 KiB as JSON"),
])
def test_setting_checks_say_what_mixerd_says(schema, key, value, message):
    harness = PluginHarness(Probe, {"settings_schema": schema})
    with pytest.raises(ValueError) as refused:
        harness.plugin.set_setting(key, value)
    assert str(refused.value) == message
    assert harness.mixerd.settings == {}


def test_a_value_at_the_limits_is_saved():
    harness = PluginHarness(Probe, {})
    sixteen_deep = [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]
    assert harness.plugin.set_setting("deep", sixteen_deep) is True
    assert harness.plugin.get_setting("deep") == sixteen_deep
