"""A fake Home Assistant that speaks its WebSocket API message for message, as
developers.home-assistant.io/docs/api/websocket documents it (Home Assistant itself cannot run
here):

  server: {"type": "auth_required", "ha_version": ...}
  client: {"type": "auth", "access_token": ...}
  server: {"type": "auth_ok", ...} or {"type": "auth_invalid", "message": ...} and closes
  then every client message carries an integer "id" that increases (else an id_reuse error);
  answers are {"id", "type": "result", "success": true, "result": ...} or
  {"id", "type": "result", "success": false, "error": {"code", "message"}}:
  subscribe_events (state_changed)  -> result null, then {"id", "type": "event", "event": {...}}
  get_states                        -> result [state objects]
  call_service                      -> changes the entity as the service does, emits
                                       state_changed (only when something changed, as Home
                                       Assistant does) before its result {"context": ...}
  ping                              -> {"id", "type": "pong"}

Controls for tests (thread-safe): refuse_token, silent_calls (call_service gets no answer and
changes nothing), silent (nothing at all is sent, not even auth_required), stop(), start()
(same port: a restart), set_state() (a change made elsewhere), calls (the call_service messages
received). Demo: `python3 ha_fake.py --port 8123 --token secret`.
"""
import argparse
import asyncio
import datetime
import json
import queue
import threading
import uuid

import websockets

HA_VERSION = "2023.8.4"
DOMAIN_SERVICES = {
    "light": {"turn_on", "turn_off", "toggle"},
    "switch": {"turn_on", "turn_off", "toggle"},
    "fan": {"turn_on", "turn_off", "toggle"},
    "input_boolean": {"turn_on", "turn_off", "toggle"},
}


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def _context():
    return {"id": uuid.uuid4().hex[:26].upper(), "parent_id": None, "user_id": None}


def state_object(entity_id, state, **attributes):
    stamp = _now()
    return {"entity_id": entity_id, "state": state, "attributes": attributes,
            "last_changed": stamp, "last_updated": stamp, "context": _context()}


class FakeHomeAssistant:
    def __init__(self, token, states, ssl_context=None, port=0):
        self.token = token
        self.states = {s["entity_id"]: s for s in states}
        self.ssl_context = ssl_context
        self.port = port
        self.refuse_token = False
        self.silent_calls = False
        self.silent = False
        self.calls = queue.Queue()  # every call_service message received
        self.auth_attempts = 0
        self._subscribers = {}  # connection -> subscription id
        self._server = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    # ---- controls (any thread) ------------------------------------------------------------

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=10)

    @property
    def url(self):
        scheme = "https" if self.ssl_context else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def start(self):
        self._run(self._start())
        return self

    def stop(self):
        self._run(self._stop())

    def close(self):
        self.stop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def set_state(self, entity_id, state, **attributes):
        """A change made outside mixerd (a wall switch): state_changed to every subscriber."""
        self._run(self._change(entity_id, state, attributes, replace_attributes=False))

    def state(self, entity_id):
        return self._run(self._read(entity_id))

    # ---- the server -------------------------------------------------------------------------

    async def _read(self, entity_id):
        return json.loads(json.dumps(self.states.get(entity_id)))

    async def _start(self):
        self._server = await websockets.serve(self._connection, "127.0.0.1", self.port,
                                              ssl=self.ssl_context)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self):
        if self._server is not None:
            self._server.close()  # closes every connection (1001 going away)
            await self._server.wait_closed()
            self._server = None
        self._subscribers.clear()

    async def _connection(self, ws, path=None):
        if self.silent:
            await ws.wait_closed()
            return
        if ws.path != "/api/websocket":
            await ws.close(1008, "not found")
            return
        await ws.send(json.dumps({"type": "auth_required", "ha_version": HA_VERSION}))
        try:
            auth = json.loads(await ws.recv())
        except (websockets.ConnectionClosed, ValueError):
            return
        self.auth_attempts += 1
        if (auth.get("type") != "auth" or auth.get("access_token") != self.token
                or self.refuse_token):
            await ws.send(json.dumps({"type": "auth_invalid",
                                      "message": "Invalid access token or password"}))
            await ws.close()
            return
        await ws.send(json.dumps({"type": "auth_ok", "ha_version": HA_VERSION}))
        last_id = 0
        try:
            async for text in ws:
                message = json.loads(text)
                msg_id = message.get("id")
                if not isinstance(msg_id, int) or isinstance(msg_id, bool):
                    await self._error(ws, None, "invalid_format", "Message incorrectly formatted.")
                    continue
                if msg_id <= last_id:
                    await self._error(ws, msg_id, "id_reuse", "Identifier values have to increase.")
                    continue
                last_id = msg_id
                await self._handle(ws, msg_id, message)
        except websockets.ConnectionClosed:
            pass
        finally:
            self._subscribers.pop(ws, None)

    async def _result(self, ws, msg_id, result=None):
        await ws.send(json.dumps({"id": msg_id, "type": "result", "success": True,
                                  "result": result}))

    async def _error(self, ws, msg_id, code, message):
        await ws.send(json.dumps({"id": msg_id, "type": "result", "success": False,
                                  "error": {"code": code, "message": message}}))

    async def _handle(self, ws, msg_id, message):
        kind = message.get("type")
        if kind == "ping":
            await ws.send(json.dumps({"id": msg_id, "type": "pong"}))
        elif kind == "subscribe_events":
            if message.get("event_type") != "state_changed":
                return await self._result(ws, msg_id)  # other events never fire here
            self._subscribers[ws] = msg_id
            await self._result(ws, msg_id)
        elif kind == "get_states":
            await self._result(ws, msg_id, list(self.states.values()))
        elif kind == "call_service":
            self.calls.put(message)
            if self.silent_calls:
                return
            await self._call_service(ws, msg_id, message)
        else:
            await self._error(ws, msg_id, "unknown_command", "Unknown command.")

    async def _call_service(self, ws, msg_id, message):
        domain, service = message.get("domain"), message.get("service")
        if service not in DOMAIN_SERVICES.get(domain, ()):
            return await self._error(ws, msg_id, "not_found",
                                     f"Service {domain}.{service} not found.")
        data = dict(message.get("service_data") or {})
        target = message.get("target") or {}
        entity_id = target.get("entity_id", data.pop("entity_id", None))
        if "brightness_pct" in data and (domain != "light" or service != "turn_on"):
            return await self._error(ws, msg_id, "invalid_format",
                                     "extra keys not allowed @ data['brightness_pct']")
        current = self.states.get(entity_id)
        if current is not None and entity_id.split(".")[0] == domain:
            new_state = {"toggle": "off" if current["state"] == "on" else "on",
                         "turn_on": "on", "turn_off": "off"}[service]
            attributes = dict(current["attributes"])
            if domain == "light":
                if new_state == "off":
                    attributes["brightness"] = None
                elif "brightness_pct" in data:
                    attributes["brightness"] = int(data["brightness_pct"] * 255 / 100 + 0.5)
                elif attributes.get("brightness") is None:
                    attributes["brightness"] = 255
            await self._change(entity_id, new_state, attributes, replace_attributes=True)
        # As Home Assistant: an entity that does not exist is no error.
        await self._result(ws, msg_id, {"context": _context()})

    async def _change(self, entity_id, state, attributes, replace_attributes):
        old = self.states.get(entity_id)
        merged = dict(attributes) if replace_attributes or old is None else {
            **old["attributes"], **attributes}
        if old is not None and old["state"] == state and old["attributes"] == merged:
            return  # Home Assistant fires no state_changed when nothing changed
        new = state_object(entity_id, state, **merged)
        if old is not None and old["state"] == state:
            new["last_changed"] = old["last_changed"]
        self.states[entity_id] = new
        for ws, sub_id in list(self._subscribers.items()):
            event = {"event_type": "state_changed",
                     "data": {"entity_id": entity_id, "old_state": old, "new_state": new},
                     "origin": "LOCAL", "time_fired": new["last_updated"],
                     "context": new["context"]}
            try:
                await ws.send(json.dumps({"id": sub_id, "type": "event", "event": event}))
            except websockets.ConnectionClosed:
                self._subscribers.pop(ws, None)


def demo_states():
    return [
        state_object("light.desk", "on", friendly_name="Desk lamp", brightness=128,
                     supported_color_modes=["brightness"], color_mode="brightness"),
        state_object("switch.fan_plug", "off", friendly_name="Fan plug"),
        state_object("input_boolean.guest_mode", "off", friendly_name="Guest mode"),
        state_object("sensor.temperature", "21.5", friendly_name="Temperature",
                     unit_of_measurement="°C"),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--token", required=True)
    args = parser.parse_args()
    fake = FakeHomeAssistant(args.token, demo_states(), port=args.port).start()
    print(f"fake Home Assistant on {fake.url} (Ctrl-C stops it)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.close()


if __name__ == "__main__":
    main()
