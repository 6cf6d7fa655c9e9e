"""Writers for the kill -9 test: each sends one REST write at a time, keeps the state its answers
imply (the model), and knows the request in flight when the daemon died. mixerd has two files
written by REST calls: settings.json (sliders, mutes, master volume through the mixer; handler
switches and the API key through the notification API) and plants.json (the plant store).
Profile files have their own kill -9 test (test_kill_during_profile_writes.py).
"""
import copy
import http.client as http_client
import threading
import urllib.error

import fault_support  # noqa: F401 (loads the integration harness)
from integration_harness import http

HANDLER_IDS = ("api", "system", "stream", "smarthome", "music", "plugins")
# The key a regenerate in flight would have written: any new key matches it (see matches()).
UNKNOWN_KEY = "<regenerated, not answered>"
TRANSPORT_ERRORS = (OSError, http_client.HTTPException, urllib.error.URLError)


class Writer(threading.Thread):
    """Sends ops until told to stop or until the daemon is gone. states[k] is the model after k
    answered ops; `in_flight` is the model had the unanswered op been applied (or None)."""

    def __init__(self, rng, initial):
        super().__init__(daemon=True)
        self.rng = rng
        self.states = [copy.deepcopy(initial)]
        self.in_flight = None
        self.unexpected = []  # answers that are not what the op must get
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            state = copy.deepcopy(self.states[-1])
            request, apply = self.next_op(state)
            if request is None:
                return
            self.in_flight = apply(copy.deepcopy(state), None)
            try:
                status, body, _ = http(*request, timeout=10)
            except TRANSPORT_ERRORS:
                return  # killed: the op may or may not have been applied
            if not self.accept(status, body, request):
                return
            self.states.append(apply(state, body))
            self.in_flight = None

    def accept(self, status, body, request):
        if 200 <= status < 300:
            return True
        self.unexpected.append((request[:2], status, body))
        return False

    def candidates(self):
        """Every state the file may hold: any answered prefix, or the op in flight applied."""
        return self.states + ([self.in_flight] if self.in_flight is not None else [])


class MixerWriter(Writer):
    """settings.json keys sliders, mutes, master_volume, through the controller. The settings
    actor coalesces writes (250 ms), so any prefix of the answered ops may be on disk."""

    def __init__(self, rng, initial, daemon, tag):
        super().__init__(rng, initial)
        self.daemon = daemon
        self.tag = tag
        self.count = 0

    def next_op(self, state):
        self.count += 1
        kind = self.rng.choice(("volume", "assign", "mute", "master_mute"))
        url = self.daemon.url
        if kind == "volume":
            value = self.rng.choice([v for v in range(101) if v != state["master_volume"]])

            def apply(s, body):
                s["master_volume"] = value
                return s
            return ("POST", url("/api/volume/master"), {"value": value}), apply
        i = self.rng.randrange(4)
        if kind == "assign":
            label = f"{self.tag}-{self.count}"
            assignment = {"type": "app", "names": [f"app-{self.count}"]}

            def apply(s, body):
                s["sliders"][i] = [label, assignment]
                return s
            body = {**assignment, "label": label}
            return ("POST", url(f"/api/sliders/{i + 1}/assignment"), body), apply
        if kind == "mute":
            def apply(s, body):
                s["mutes"]["individual"][i] = body["muted"] if body else not s["mutes"]["individual"][i]
                return s
            return ("POST", url(f"/api/mutes/{i + 1}"), b""), apply

        def apply(s, body):
            s["mutes"]["master"] = body["muted"] if body else not s["mutes"]["master"]
            return s
        return ("POST", url("/api/mutes/master"), b""), apply

    @staticmethod
    def project(settings):
        return {"master_volume": settings.get("master_volume"), "mutes": settings.get("mutes"),
                "sliders": [[s.get("label"), s.get("assignment")] for s in settings.get("sliders", [])]}


class ToastWriter(Writer):
    """settings.json keys toast_handlers and toast_api_key, through the notification API. A
    regenerate is answered only once settings.json is written (a flush of everything pending),
    so what it answered is on disk, with every mixer op answered before it was sent."""

    MAX_REQUESTS = 25  # the notification API admits 30 requests a minute per address

    def __init__(self, rng, initial, daemon, mixer):
        super().__init__(rng, initial)
        self.daemon = daemon
        self.mixer = mixer
        self.requests = 0
        self.flushed = 0  # states index a regenerate answer guarantees
        self.mixer_flushed = 0  # mixer states index the same answer guarantees
        self._mixer_at_send = 0

    def next_op(self, state):
        if self.requests >= self.MAX_REQUESTS:
            return None, None
        self.requests += 1
        headers = {"X-API-Key": state["toast_api_key"]}
        url = self.daemon.url
        if self.rng.random() < 0.2:
            self._mixer_at_send = len(self.mixer.states) - 1

            def apply(s, body):
                s["toast_api_key"] = body["api_key"] if body else UNKNOWN_KEY
                return s
            return ("POST", url("/api/toast/regenerate", "notification API"), b"", headers), apply
        handler = self.rng.choice(HANDLER_IDS)
        enabled = self.rng.random() < 0.5

        def apply(s, body):
            s["toast_handlers"][handler] = enabled
            return s
        return ("POST", url(f"/api/toast/handlers/{handler}", "notification API"),
                {"enabled": enabled}, headers), apply

    def accept(self, status, body, request):
        ok = super().accept(status, body, request)
        if ok and request[1].endswith("/regenerate"):
            self.flushed = len(self.states)  # the state this answer leads to
            self.mixer_flushed = self._mixer_at_send
        return ok

    @staticmethod
    def project(settings):
        return {"toast_handlers": settings.get("toast_handlers"),
                "toast_api_key": settings.get("toast_api_key")}


class PlantDeleter(Writer):
    """plants.json through the plant store: every 204 is on disk before it is sent."""

    def __init__(self, rng, ids, daemon, token):
        super().__init__(rng, {"deleted": []})
        self.ids = list(ids)
        self.rng.shuffle(self.ids)
        self.daemon = daemon
        self.token = token

    def next_op(self, state):
        if len(state["deleted"]) >= len(self.ids):
            return None, None
        plant = self.ids[len(state["deleted"])]

        def apply(s, body):
            s["deleted"].append(plant)
            return s
        headers = {"Authorization": f"Bearer {self.token}"}
        return ("DELETE", self.daemon.url(f"/plants/{plant}", "plant store"), None, headers), apply

    def accept(self, status, body, request):
        if status == 204:
            return True
        self.unexpected.append((request[:2], status, body))
        return False


def matches(on_disk, candidate):
    """Whether a projection read from the file is the candidate state."""
    if candidate.get("toast_api_key") == UNKNOWN_KEY:
        key = on_disk.get("toast_api_key")
        rest = {k: v for k, v in on_disk.items() if k != "toast_api_key"}
        want = {k: v for k, v in candidate.items() if k != "toast_api_key"}
        return rest == want and isinstance(key, str) and len(key) == 64
    return on_disk == candidate
