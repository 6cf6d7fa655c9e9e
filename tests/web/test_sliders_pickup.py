"""The live page's pick-up ghost mark (docs/web.md "Mixer"): after a value set through the API,
the device's slider does not drive until it is picked up; meanwhile the page shows where the
physical slider is as a mark on the track, and says so in the slider's description. Real mixerd,
a pty device and Chromium at phone size."""
import json
import os

import pytest

from browser import element_id, role
from conftest import SCREENSHOTS, harness, open_live

get_json, http, wait_until = harness.get_json, harness.http, harness.wait_until

SYSTEM = role("slider", "System")
GHOST = element_id("slider-1-ghost")
PICKUP_TEXT = element_id("slider-1-pickup")
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SIZES = [("phone", 390, 844, True), ("desktop", 1280, 800, False)]


def slider(daemon, index=1):
    return get_json(daemon, "/api/sliders")["sliders"][index - 1]


def ghost_fraction(browser):
    """Where the ghost mark's centre sits along the slider's track, 0 (bottom) to 1 (top): the
    thumb's centre travels 10 px inside each end of the range (sections.css)."""
    track = browser.read(SYSTEM, "box")
    ghost = browser.read(GHOST, "box")
    centre = ghost["y"] + ghost["height"] / 2
    bottom, travel = track["y"] + track["height"] - 10, track["height"] - 20
    return (bottom - centre) / travel


@pytest.mark.parametrize("name,width,height,touch", SIZES)
def test_the_ghost_mark_shows_the_physical_slider_until_it_is_picked_up(
        browser, web, device, name, width, height, touch):
    open_live(browser, web, width=width, height=height, touch=touch)
    # The first reading of a fresh start drives: the device's slider is at 20.
    device.send("SLIDER,0,20")
    browser.wait(SYSTEM, "value", equals="20")
    assert browser.read(GHOST, "visible") is False

    # The phone sets 70: the daemon now waits for the physical slider (still at 20) to come there.
    status, body, _ = http("POST", web.url("/api/sliders/1"), {"value": 70})
    assert status == 200, body
    browser.wait(SYSTEM, "value", equals="70")
    wait_until(lambda: slider(web)["pickup"] is True, what="pickup on after the API's value")

    # A reading far from 70 moves nothing but the ghost mark.
    device.send("SLIDER,0,30")
    browser.wait(GHOST, "visible", equals=True)
    browser.wait(PICKUP_TEXT, "text", equals="Hardware slider at 30, move it to 70 to take over")
    assert "slider-1-pickup" in browser.read(SYSTEM, "attr:aria-describedby").split()
    assert browser.read(GHOST, "attr:aria-hidden") == "true"
    state = slider(web)
    assert (state["value"], state["position"], state["pickup"]) == (70, 30, True), state
    assert browser.read(SYSTEM) == "70"
    assert browser.read(element_id("slider-1-controls"), "text") == "System output"
    fraction = ghost_fraction(browser)
    assert abs(fraction - 0.30) < 0.03, f"the ghost mark sits at {fraction:.3f} of the track, not 0.30"
    # The mixer, the part this touches (the whole live page has a finding of its own elsewhere:
    # the profile buttons' names, docs/web.md "Profiles").
    result = browser.axe(AXE_TAGS, include=".mixer-card")
    print(f"\n[figures] axe {result['version']} mixer with a ghost mark, {name}: "
          f"{result['passes']} rules passed, {len(result['violations'])} violated")
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)
    browser.screenshot(os.path.join(SCREENSHOTS, f"live-pickup-ghost-{name}.png"))

    # The mark follows the physical slider while it is not yet picked up.
    device.send("SLIDER,0,45")
    browser.wait(PICKUP_TEXT, "text", equals="Hardware slider at 45, move it to 70 to take over")
    wait_until(lambda: abs(ghost_fraction(browser) - 0.45) < 0.03, what="the ghost mark at 45")
    assert browser.read(SYSTEM) == "70"
    # The mark is drawn only: a drag that starts on it moves the slider under it, which is one
    # more value set on the page, so the mark stays and now asks for the new value.
    drag = browser.drag(SYSTEM, 0.45, 0.85, steps=20)
    value = int(drag["value"])
    assert value >= 80, drag
    wait_until(lambda: slider(web)["value"] == value, what=f"API value {value}")
    browser.wait(PICKUP_TEXT, "text", equals=f"Hardware slider at 45, move it to {value} to take over")
    assert browser.read(GHOST, "visible") is True
    device.send("SLIDER,0,60")  # crosses nothing, far from the value: still only the mark moves
    browser.wait(PICKUP_TEXT, "text", equals=f"Hardware slider at 60, move it to {value} to take over")
    assert browser.read(SYSTEM) == str(value)
    device.send("SLIDER,0,70")
    browser.wait(PICKUP_TEXT, "text", equals=f"Hardware slider at 70, move it to {value} to take over")
    device.send(f"SLIDER,0,{value - 1}")
    browser.wait(SYSTEM, "value", equals=str(value - 1))
    browser.wait(GHOST, "visible", equals=False)

    # Once more through the API, to 30 (a value the drag never sent: the page takes a value it
    # sent itself, arriving just after the drag, for a late echo): the device's slider, at
    # value - 1, must come back down.
    assert http("POST", web.url("/api/sliders/1"), {"value": 30})[0] == 200
    browser.wait(SYSTEM, "value", equals="30")
    device.send("SLIDER,0,90")
    browser.wait(PICKUP_TEXT, "text", equals="Hardware slider at 90, move it to 30 to take over")
    assert browser.read(GHOST, "visible") is True

    # Within 2 of the value: picked up. The mark goes, and the slider follows the device again.
    device.send("SLIDER,0,31")
    browser.wait(SYSTEM, "value", equals="31")
    browser.wait(GHOST, "visible", equals=False)
    assert browser.read(PICKUP_TEXT, "text") == ""
    assert browser.read(SYSTEM, "attr:aria-describedby") == "slider-1-controls"
    state = slider(web)
    assert (state["value"], state["pickup"]) == (31, False), state
    device.send("SLIDER,0,50")
    browser.wait(SYSTEM, "value", equals="50")
    assert browser.read(GHOST, "visible") is False
    log = browser.log()
    assert log["consoleErrors"] == [] and log["pageErrors"] == [], log
