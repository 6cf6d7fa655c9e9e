"""The Python end of driver/browser.mjs: one Node process driving one headless Chromium.

Every call sends one JSON line and waits (with a timeout) for its answer. Controls are named
the way the page names them for assistive technology: `role("slider", "System")`,
`role("button", "Mute System")`, or `element_id("daemon-state")`.
"""
import itertools
import json
import os
import queue
import re
import subprocess
import threading

DRIVER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver")


def role(role_name, name):
    return {"role": role_name, "name": name}


def element_id(ident):
    return {"id": ident}


def label(text):
    """The form control labelled `text` (a password box, which has no role)."""
    return {"label": text}


class DriverError(AssertionError):
    pass


class Browser:
    def __init__(self):
        for package in ("playwright-core", "axe-core"):
            if not os.path.isdir(os.path.join(DRIVER_DIR, "node_modules", package)):
                raise DriverError(f"{package} is not installed: run `npm ci` in {DRIVER_DIR}")
        self._ids = itertools.count(1)
        self._answers = queue.Queue()
        self.stderr = []
        self.proc = subprocess.Popen(["node", os.path.join(DRIVER_DIR, "browser.mjs")],
                                     cwd=DRIVER_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._pump_out, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    def _pump_out(self):
        for line in self.proc.stdout:
            self._answers.put(json.loads(line))
        self._answers.put(None)

    def _pump_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def call(self, cmd, answer_within=30.0, **args):
        ident = next(self._ids)
        self.proc.stdin.write(json.dumps({"id": ident, "cmd": cmd, **args}) + "\n")
        self.proc.stdin.flush()
        while True:
            try:
                answer = self._answers.get(timeout=answer_within)
            except queue.Empty:
                raise DriverError(f"the driver did not answer {cmd} within {answer_within} s") from None
            if answer is None:
                raise DriverError("the browser driver exited:\n" + "\n".join(self.stderr))
            if answer["id"] != ident:
                continue  # the answer of an earlier call that timed out
            if not answer["ok"]:
                raise DriverError(f"{cmd}: {answer['error']}")
            return answer["result"]

    # The commands, with their arguments spelled out.
    def open(self, url, width=1280, height=800, touch=False):
        """A fresh browser context (no cookies) with one page at `url`; forgets the old log."""
        return self.call("open", url=url, width=width, height=height, touch=touch)

    def goto(self, url):
        return self.call("goto", url=url)

    def url(self):
        return self.call("url")["url"]

    def wait_for_path(self, path, timeout=5.0):
        return self.call("waitForUrl", answer_within=timeout + 10, path=path, timeout=int(timeout * 1000))

    def click(self, target):
        self.call("click", target=target)

    def fill(self, target, value):
        self.call("fill", target=target, value=value)

    def download(self, target, timeout=10.0):
        """Clicks `target` and waits for the download it starts: {"name", "text"}."""
        return self.call("download", answer_within=timeout + 10, target=target, timeout=int(timeout * 1000))

    def set_file(self, target, name, text, mime_type="application/json"):
        """Chooses a file named `name` holding `text` in the file input `target`."""
        self.call("setFile", target=target, name=name, text=text, mimeType=mime_type)

    def check(self, target):
        self.call("check", target=target)

    def uncheck(self, target):
        self.call("uncheck", target=target)

    def select(self, target, value):
        """Chooses the option whose value or text is `value` in a select."""
        self.call("select", target=target, value=value)

    def mouse_down(self, target):
        """The mouse button goes down on the middle of `target` and stays down."""
        self.call("mouseDown", target=target)

    def mouse_up(self):
        self.call("mouseUp")

    def press(self, key):
        """A key press on whatever has the focus ("Tab", "ArrowRight", "Enter")."""
        self.call("press", key=key)

    def focused(self):
        """{"id", "tag", "role", "text"} of the focused element, or None for the body."""
        return self.call("focused")

    def page_text(self):
        """{"html": the page's markup, "values": the value of every input, textarea, select}."""
        return self.call("pageText")

    def axe(self, tags, include=None):
        """axe-core's violations of the rules with `tags` on the page (or the `include` selector).
        Every view checked this way is also read as a screen reader would get it: text made of a
        JavaScript value that was never meant for people ("[object HTMLElement]", "undefined",
        "NaN") is a DriverError."""
        result = self.call("axe", answer_within=60, tags=list(tags), include=include)
        text = self.read({"css": include or "body"}, "text") or ""
        junk = re.search(r"\[object \w+\]|\bundefined\b|\bNaN\b", text)
        if junk:
            raise DriverError(f"the page reads {junk.group()!r}: "
                              f"...{text[max(0, junk.start() - 80):junk.end() + 40]}...")
        return result

    def count(self, target):
        return self.call("count", target=target)

    def read(self, target, prop="value"):
        return self.call("read", target=target, prop=prop)

    def wait(self, target, prop="value", timeout=5.0, **want):
        """Waits until `prop` of `target` matches (equals=, contains=, notEquals=); returns
        {"value", "elapsedMs"} (elapsedMs: measured in the driver, from the call's arrival)."""
        return self.call("wait", answer_within=timeout + 10, target=target, prop=prop,
                         timeout=int(timeout * 1000), **want)

    def drag(self, target, start, end, steps=40):
        """A real pointer drag along the range from fraction `start` to `end` (0 = min end)."""
        return self.call("drag", target=target, **{"from": start, "to": end}, steps=steps)

    def input_burst(self, target, values):
        """Sets the range to each of `values` with an input event, all within one task."""
        return self.call("inputBurst", target=target, values=list(values))

    def wait_frames(self, n):
        """Returns after the page has drawn n animation frames."""
        return self.call("waitFrames", n=n)

    def boxes(self, role_name):
        """[{"name", "box": {x, y, width, height}}] of every visible element with that role."""
        return self.call("boxes", role=role_name)

    def layout(self):
        return self.call("layout")

    def screenshot(self, path, full_page=False):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.call("screenshot", path=path, fullPage=full_page)

    def log(self, since=0):
        return self.call("log", since=since)

    def close_page(self):
        self.call("close")

    def quit(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
