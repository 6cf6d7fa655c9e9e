#!/usr/bin/python3
"""Writes the hand-made seeds of every fuzz target into tests/fuzz/corpus/<target>/seed-*.

The seeds are realistic inputs taken from docs/api.md, protocol/README.md and the reference server's frames,
protocol/README.md and the unit tests. Other files are left alone: found-* (inputs of fixed
findings) and those `tools/fuzz.sh merge` chose (named by their SHA-1). Run after changing a seed: /usr/bin/python3 tests/fuzz/seeds.py
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
RS = "\x1e"


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    with open(os.path.join(folder, "seed-" + name), "wb") as f:
        f.write(data)


# ---- device_line: what the device (firmware, simulator) sends; host lines for the simulator.
DEVICE = {
    "handshake": "STATE,CONNECTED\r\nACK,READY\r\nDEV_TYPE,Mixlar Mix\r\nFW_VER,2.0.0\r\n",
    "sliders": "SLIDER,0,57\nSLIDER,1,0\nSLIDER,2,100\nSLIDER,3,42\n",
    "bad-values": "SLIDER,4,10\nSLIDER,0,101\nENCODER,0\nENCODER,1001\nENCODER,+-1\nMPAGE,4\n",
    "buttons": "MACRO,0,PRESS\rMACRO,0,RELEASE\rMACRO,8,PRESS\rENCODER,PRESS\rENCODER,RELEASE\r",
    "encoder": "ENCODER,-2\nENCODER,3\nENCODER,+3\nENCODER,-1000\n",
    "mutes": "MUTE,0,PRESS\nMUTE,3,PRESS\nMUTE,MASTER,PRESS\n",
    "pages": "PAGE,MAIN\nPAGE,Mix\\,er\nMPAGE,0\nMPAGE,3\nVER,2.0.0\nPONG\n",
    "acks": "ACK,VOL,0,Music,50\nACK,VOL,0,A\\,B,50\nACK,BRIGHTNESS,80\nACK,MACRO,4,Back\\\\slash,play\n",
    "boot-chatter": "ADC: OK\nTouch: not found\nMixlar Mix ready\n[PSRAM] 8 MB\nQA,PASS,2024-01-01\n",
    "crlf-split": "SLIDER,2,5\r\n\r\n\n\rSLIDER,2,6\r",
    "overlong": "PAGE," + "x" * 300 + "\nSLIDER,1,1\n",
    "unterminated": "SLIDER,3,9",
    "utf8": "PAGE,Caf\u00e9 \u266b \U0001f3b5\nDEV_TYPE,Mixlar\u00a0Mix\n",
    "host-vol": "VOL,0,Music,50\nVOL,1,C:\\Music,0\nVOL,3,A\\,B\\\\C,100\n",
    "host-cmds": "READY\nPING\nVER\nDEV_TYPE\nREBOOT\nBRIGHTNESS,33\nMASTER,64\nMPAGE,2\n",
    "host-mute": "MUTE,0,1\nMUTE,MASTER,0\nMUTE,3,0\n",
    "host-macro": "MACRO,2,Play,\nMACRO,8,x\\,y,ic\\\\on\nMACRO,4,Mic,mic\n",
    "host-toast": "TOAST,3000,bell,3B82F6,Build passed,main \u00b7 42 s\n"
                  "TOAST,30000,warning,FF0000,Disk\\, full,\n",
}
for name, text in DEVICE.items():
    write("device_line", name, text)

# ---- engineio_payload: polling POST bodies (docs/api.md, Socket.IO wire level).
POLLING = {
    "connect": "40",
    "connect-auth": '40{"token":"0123456789abcdef0123456789abcdef"}',
    "two-events": '42["get_state"]' + RS + '42["set_volume",{"index":1,"value":0.3}]',
    "pong": "3",
    "disconnect-close": "41" + RS + "1",
    "ack": '420["get_state"]' + RS + '3',
    "noop-upgrade": "6" + RS + "5" + RS + "2probe",
    "empty-packet": "42[\"a\"]" + RS + RS + "3",
    "binary": "bAQIDBA==",
    # socket.io-client 4: socket.emit("get_state", Buffer.from([1, 2, 3]), ack)
    "binary-event": '451-0["get_state",{"_placeholder":true,"num":0}]' + RS + "bAQID",
    "binary-ack-two": '461-/admin,3[{"_placeholder":true,"num":1},{"_placeholder":true,"num":0}]'
                      + RS + "b" + RS + "b//4=",
    "binary-stray": "bAR==" + RS + "bAQID" + RS + '42["x"]',
    "unicode": '42["ev",{"label":"Caf\u00e9 \U0001f3b5"}]',
}
for name, text in POLLING.items():
    write("engineio_payload", name, text)

# ---- socketio_packet: Socket.IO packets (the data of an Engine.IO '4') and handshake queries.
SIO = {
    "connect": "0",
    "connect-auth": '0{"token":"abc"}',
    "connect-nsp": "0/admin,",
    "disconnect": "1",
    "disconnect-nsp": "1/admin",
    "event": '2["get_state"]',
    "event-ack": '20["get_state"]',
    "event-ack-nsp": '2/admin,1["tellme"]',
    "event-data": '2["slider_change",{"index":2,"value":57}]',
    "ack": '30[{"sliders":[0.1,0.2]}]',
    "connect-error": '4{"message":"Authentication required"}',
    "reserved": '2["disconnect"]',
    "binary": '51-["a",{"_placeholder":true,"num":0}]',
    "binary-ack": '61-/admin,3[{"_placeholder":true,"num":0},{"x":[{"_placeholder":true,"num":0}]}]',
    "binary-ten": '510-0["get_state",' + ",".join(
        '{"_placeholder":true,"num":%d}' % i for i in range(10)) + "]",
    "binary-bad": '511-["a"]',
    "deep": "2" + "[" * 70 + "]" * 70,
    "big-ack": "218446744073709551615[\"x\"]",
    "query-polling": "EIO=4&transport=polling&t=330o7ajx",
    "query-sid": "EIO=4&transport=websocket&sid=bNsSwWUI4vHjs-atAAAA",
    "query-python": "transport=polling&EIO=4&t=1795245983.8679109",
}
for name, text in SIO.items():
    write("socketio_packet", name, text)


# ---- websocket_frames: client frames (masked, RFC 6455) after the handshake.
def frame(payload, opcode=1, fin=True, mask=b"\x37\xfa\x21\x3d"):
    if isinstance(payload, str):
        payload = payload.encode()
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


WS = {
    "upgrade-probe": frame("2probe") + frame("5"),
    "session": frame("40") + frame('42["get_state"]') + frame('420["get_state"]') + frame("3"),
    "python": frame("40{}") + frame('421["get_state"]') + frame("41") + frame("1"),
    "fragmented": frame('42["set_vo', fin=False) + frame('lume",{"index":1}]', opcode=0),
    "ping-close": frame(b"hi", opcode=9) + frame(struct.pack(">H", 1000), opcode=8),
    "binary": frame(b"\x00\x01\x02", opcode=2),
    "binary-event": frame('451-0["get_state",{"_placeholder":true,"num":0}]')
    + frame(b"\x01\x02\x03", opcode=2) + frame('452-1["x",{"_placeholder":true,"num":1},'
                                                 '{"_placeholder":true,"num":0}]')
    + frame("bAQID") + frame(b"", opcode=2),
    "long": frame('42["ev","' + "x" * 300 + '"]'),
    "bad-utf8": frame(b"42[\"\xff\"]"),
    "unmasked": b"\x81\x0242",
}
for name, data in WS.items():
    write("websocket_frames", name, data)


# ---- http_request: requests to the three listeners (docs/api.md, protocol/README.md).
def request(method, target, body=None, headers=()):
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1:5000"]
    lines += list(headers)
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body.encode())}"]
    return "\r\n".join(lines) + "\r\n\r\n" + (body or "")


LIVE_COOKIE = "Cookie: controller_session=" + "ab" * 32
KEY = "X-API-Key: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
HTTP = {
    "get-status": request("GET", "/api/status"),
    "profiles": request("GET", "/api/profiles") + request("GET", "/api/profiles/current") +
    request("GET", "/api/profiles/a%2Fb%20%E2%98%86"),
    "profile-load": request("POST", "/api/profiles/load", '{"name": "Default"}'),
    "profile-create": request("POST", "/api/profiles", '{"name": "../x", "icon": "star"}'),
    "profile-rename": request("PUT", "/api/profiles/..%2Fx", '{"new_name": "a/b", "icon": ""}'),
    "profile-delete-nul": request("DELETE", "/api/profiles/a%00b"),
    "get-sliders-keepalive": request("GET", "/api/sliders") + request("GET", "/api/mutes"),
    "post-slider": request("POST", "/api/sliders/2", '{"value": 57}'),
    "post-slider-float": request("POST", "/api/sliders/4", '{"value": 57.0}'),
    "post-slider-bad-index": request("POST", "/api/sliders/5", '{"value": 1}'),
    "post-assignment": request("POST", "/api/sliders/1/assignment",
                               '{"type": "specific_app", "names": ["Spotify.exe", "firefox"], '
                               '"label": "Music", "enforce_volume": false}'),
    "post-assignment-system": request("POST", "/api/sliders/3/assignment",
                                      '{"type": "system_default_input"}'),
    "get-assignment": request("GET", "/api/sliders/3/assignment"),
    "get-sessions": request("GET", "/api/audio/sessions"),
    "post-mute": request("POST", "/api/mutes/3"),
    "post-master-mute": request("POST", "/api/mutes/master"),
    "post-master-volume": request("POST", "/api/volume/master", '{"value": 100}'),
    "head-volume": request("HEAD", "/api/volume/master"),
    "login": request("POST", "/api/auth/login",
                     '{"username": "admin", "password": "s3cret", "remember": true}',
                     ["Origin: http://127.0.0.1:5000"]),
    "logout-cookie": request("POST", "/api/auth/logout", "",
                             ["Cookie: theme=dark; controller_session=" + "ab" * 32]),
    "auth-status": request("GET", "/api/auth/status"),
    # The session ids the fuzz target's auth view knows (route_table_backends.hpp): one live
    # (unless the input's scenario let it idle out), one idle.
    "session-live": request("GET", "/api/sliders", headers=[LIVE_COOKIE])
    + request("GET", "/api/auth/status", headers=["Origin: http://127.0.0.1:5000", LIVE_COOKIE]),
    "session-idle": request("GET", "/api/status",
                            headers=["Cookie: controller_session=" + "cd" * 32]),
    "preflight": request("OPTIONS", "/api/sliders/1",
                         headers=["Origin: http://example.com",
                                  "Access-Control-Request-Method: POST",
                                  "Access-Control-Request-Headers: content-type"]),
    "method-not-allowed": request("DELETE", "/api/sliders"),
    "percent-path": request("GET", "/api/%73liders/%31/assignment?x=1"),
    "toast-send": request("POST", "/api/toast/send",
                          '{"message": "Build passed", "subtitle": "main \u00b7 42 s", '
                          '"icon": "checkmark", "duration_ms": 5000, "color": "#0f0"}', [KEY]),
    "toast-send-query-key": request("POST", "/api/toast/send?api_key=0123456789abcdef%2B",
                                    '{"message": "Caf\u00e9 \U0001f3b5", "color": null}'),
    "toast-health": request("GET", "/api/toast/health"),
    "toast-handlers": request("GET", "/api/toast/handlers", headers=[KEY]),
    "toast-switch": request("POST", "/api/toast/handlers/music", '{"enabled": false}', [KEY]),
    # An empty {id}: the router lets it through, the toast actor knows no such handler (404).
    "toast-switch-empty-id": request("POST", "/api/toast/handlers/", '{"enabled": true}', [KEY]),
    "toast-status-network": request("GET", "/api/toast/status", headers=[KEY])
    + request("GET", "/api/toast/network", headers=[KEY]),
    "toast-regenerate": request("POST", "/api/toast/regenerate", "", [KEY]),
    "plants-delete": request("DELETE", "/plants/3",
                             headers=["Authorization: Bearer abcdefABCDEF0123456789-._~+/=="]),
    "plants-delete-bad": request("DELETE", "/plants/1e3", headers=["Authorization: basic x"]),
    "plants-twice": request("DELETE", "/plants/-9223372036854775808",
                            headers=["Authorization: Bearer a", "authorization: Bearer a"]),
    "chunked": "POST /api/volume/master HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
               "c\r\n{\"value\": 3}\r\n0\r\n\r\n",
    "expect-continue": request("POST", "/api/sliders/1", '{"value": 0}',
                               ["Expect: 100-continue"]),
    "http10": "GET /api/status HTTP/1.0\r\n\r\n",
    "too-large": "POST /api/sliders/1 HTTP/1.1\r\nContent-Length: 70000\r\n\r\n{",
    "malformed": "GET /api/status HTTP/9.9\r\nHost: x\r\n\r\n",
    # Over the 16 KiB header limit: 431 (the fuzzer rarely grows inputs this long by itself).
    "headers-too-large": request("GET", "/api/status", headers=["X-Pad: " + "a" * 17000]),
    "socketio": request("GET", "/socket.io/?EIO=4&transport=polling&t=330o7ajx"),
}
for name, text in HTTP.items():
    write("http_request", name, text)

# ---- settings_json: conf/settings.example.json and the shapes protocol/README.md describes.
with open(os.path.join(HERE, "..", "..", "conf", "settings.example.json")) as f:
    write("settings_json", "example", f.read())
SETTINGS = {
    "secrets": {"toast_api_key": "0123456789abcdef" * 4, "plant_store_token": "f" * 64,
                "auth_enabled": True, "auth_username": "admin",
                "auth_password_hash": "pbkdf2_sha256$300000$" + "00" * 16 + "$" + "11" * 32},
    "mutes": {"mutes": {"individual": [False, True, False, False], "master": True},
              "master_volume": 0, "future_key": {"nested": [1, 2.5, None]}},
    "bad-port": {"controller_port": 70000},
    "bad-slider": {"sliders": [{"label": "x", "assignment": {"type": "app", "names": [""]}}]},
    "bad-bind": {"bind_address": "localhost"},
    "ipv6": {"bind_address": "::", "log_level": "debug", "serial_port": "/dev/ttyACM0"},
}
for name, value in SETTINGS.items():
    write("settings_json", name, json.dumps(value, indent=2) + "\n")
write("settings_json", "broken", '{\n  "controller_port": 5000,\n  "toast_port": \n}\n')
write("settings_json", "empty", "  \n")

# ---- plants_json: the sample list as mixerd writes it, and broken ones.
SAMPLES = ["Monstera deliciosa", "Ficus lyrata", "Sansevieria trifasciata", "Aloe vera"]
plants = [{"id": i + 1, "name": n} for i, n in enumerate(SAMPLES)]
write("plants_json", "samples", json.dumps(plants, indent=2) + "\n")
write("plants_json", "extra-keys",
      json.dumps([{"id": -9223372036854775808, "name": "x", "water": {"days": [1, 3]}}]))
write("plants_json", "duplicate", '[{"id": 1, "name": "a"}, {"id": 1, "name": "b"}]')
write("plants_json", "too-big-id", '[{"id": 9223372036854775808, "name": "a"}]')
write("plants_json", "deep", "[" * 20 + "]" * 20)
write("plants_json", "not-json", "[{\"id\": 1, \"name\": \"a\"},\n")

# ---- tailscale_status: `tailscale status --json` as the network actor reads it.
TS = {
    "running": {"Version": "1.56.1", "BackendState": "Running",
                "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1"],
                "Self": {"ID": "n1", "HostName": "pi", "DNSName": "pi.tail1234.ts.net.",
                         "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1"],
                         "Online": True},
                "MagicDNSSuffix": "tail1234.ts.net", "Peer": {}},
    "stopped": {"BackendState": "Stopped", "Self": {"DNSName": "", "TailscaleIPs": []}},
    "needs-login": {"BackendState": "NeedsLogin", "TailscaleIPs": None, "Self": None},
    "v6-only": {"BackendState": "Running", "Self": {"TailscaleIPs": ["fd7a:115c:a1e0::5"]}},
}
for name, value in TS.items():
    write("tailscale_status", name, json.dumps(value, indent=1))
write("tailscale_status", "garbage", "failed to connect to local tailscaled; it doesn't appear "
      "to be running\n")

# ---- macro_json: a Macro of every kind (docs/api.md 2.10) and Macro page sets.
MACROS = {
    "hotkey": {"type": "hotkey", "name": "Mute mic", "icon": "mic", "key": "ctrl+shift+m"},
    "command": {"type": "command", "name": "Lock", "icon": "", "argv": ["loginctl", "lock-session"]},
    "http": {"type": "http", "name": "Lamp", "url": "https://hub.local:8123/api/webhook/x?y=1",
             "method": "put", "body": "{\"on\": true}", "headers": {"Authorization": "Bearer t"}},
    "media": {"type": "media", "action": "play_pause"},
    "mute": {"type": "mute", "target": "master"},
    "volume": {"type": "volume", "target": 2, "step": -10},
    "profile": {"type": "profile", "profile": "Gaming"},
    "stream": {"type": "stream_source", "source_name": "Cam", "visible": False},
    "smarthome": {"type": "smarthome", "entity_id": "light.desk", "action": "turn_on",
                  "brightness": 40},
    "sequence": {"type": "sequence", "name": "Go live", "steps": [
        {"type": "stream_scene", "scene_name": "Live"}, {"type": "delay", "ms": 500},
        {"type": "command", "argv": ["/usr/bin/touch", "/tmp/live"]},
        {"type": "http", "url": "http://[::1]:8080/"}]},
    "plugin": {"type": "plugin", "plugin_type": "obs.replay", "seconds": 30,
               "extra": {"nested": [1, 2]}},
    "bad-step": {"type": "sequence", "steps": [{"type": "delay", "ms": 60001}]},
    "page-set": {"current_page": 1, "page_names": {"0": "Main", "1": "Stream \u266b"},
                 "pages": {"0": [{"type": "none", "name": "", "icon": ""},
                                 {"type": "mute", "name": "Mic", "icon": "mic", "target": 1}],
                           "1": [{"type": "command", "argv": ["/bin/true"]}]}},
    "bad-page-set": {"pages": {"1": [{"type": "none"}] * 4 + [{"type": "command", "argv": "x"}]}},
}
for name, value in MACROS.items():
    write("macro_json", name, json.dumps(value, indent=1))

# ---- profile_json: a profile file as mixerd writes it, broken ones, and file names / names.
EMPTY_MACRO = {"type": "none", "name": "", "icon": ""}
PROFILE = {
    "name": "Late night", "icon": "moon",
    "created": "2026-11-24T12:20:29", "updated": "2026-11-24T13:00:00",
    "sliders": [{"label": "Music", "assignment": {"type": "app", "names": ["spotify", "Spotify.exe"]},
                 "value": 30, "enforce_volume": True},
                {"label": "System", "assignment": {"type": "system_default_output"}, "value": 50,
                 "enforce_volume": True},
                {"label": "Mic", "assignment": {"type": "system_default_input"}, "value": 80,
                 "enforce_volume": False},
                {"label": "Slider 4", "assignment": {"type": "unassigned"}, "value": 0,
                 "enforce_volume": True}],
    "mutes": {"individual": [False, True, False, False], "master": False},
    "volume": 40,
    "macros": {"page_names": {"0": "Page 1", "1": "Stream", "2": "Page 3", "3": "Page 4"},
               "pages": {str(p): [EMPTY_MACRO] * 9 for p in range(4)}},
}
PROFILE["macros"]["pages"]["1"] = [
    {"type": "mute", "name": "Mic", "icon": "mic", "target": 3},
    {"type": "volume", "name": "Quiet", "icon": "", "target": "master", "value": 20},
    {"type": "http", "name": "Lamp", "icon": "bulb", "url": "http://127.0.0.1:8123/api/x",
     "method": "POST", "body": "{}", "headers": {"Content-Type": "application/json"}},
    {"type": "command", "name": "Backup", "icon": "disk", "argv": ["/usr/bin/true", "-x"]},
    {"type": "sequence", "name": "Go live", "icon": "", "steps": [
        {"type": "hotkey", "name": "", "icon": "", "key": "ctrl+shift+m"},
        {"type": "delay", "ms": 500},
        {"type": "profile", "name": "", "icon": "", "profile": "Default"}]},
] + [EMPTY_MACRO] * 4
write("profile_json", "profile", json.dumps(PROFILE, indent=2, sort_keys=True) + "\n")
write("profile_json", "hand-written", json.dumps({k: v for k, v in PROFILE.items()
                                                  if k not in ("icon", "created", "updated")}))
write("profile_json", "truncated", json.dumps(PROFILE, indent=2)[:700])
write("profile_json", "bad-slider", json.dumps({**PROFILE, "sliders": PROFILE["sliders"][:3]}))
write("profile_json", "bad-name", json.dumps({**PROFILE, "name": "a\u0000b"}))
write("profile_json", "deep", "{\"name\": " + "[" * 20 + "]" * 20 + "}")
write("profile_json", "file-names", "Late%20night.json")
write("profile_json", "file-escape", "%2E%2E%2Fx.json")
write("profile_json", "file-lower-hex", "a%2fb.json")
write("profile_json", "name-utf8", "Caf\u00e9 \u2606/..")

# ---- smarthome_json: Home Assistant's WebSocket messages (as tests/integration/ha_fake.py and
# developers.home-assistant.io show them) and the smarthome setting.
HA_LIGHT = {"entity_id": "light.desk", "state": "on",
            "attributes": {"friendly_name": "Desk lamp", "brightness": 128,
                           "supported_color_modes": ["brightness"], "color_mode": "brightness"},
            "last_changed": "2026-11-24T12:00:00+00:00", "last_updated": "2026-11-24T12:00:00+00:00",
            "context": {"id": "01HF", "parent_id": None, "user_id": None}}
HA_SWITCH = {"entity_id": "switch.fan_plug", "state": "off", "attributes": {"friendly_name": "Fan"},
             "last_changed": "2026-11-24T12:00:00+00:00", "last_updated": "2026-11-24T12:00:00+00:00",
             "context": {"id": "01HG", "parent_id": None, "user_id": None}}
HA = {
    "auth-required": {"type": "auth_required", "ha_version": "2023.8.4"},
    "auth-ok": {"type": "auth_ok", "ha_version": "2023.8.4"},
    "auth-invalid": {"type": "auth_invalid", "message": "Invalid access token or password"},
    "result-null": {"id": 1, "type": "result", "success": True, "result": None},
    "get-states": {"id": 2, "type": "result", "success": True, "result": [HA_LIGHT, HA_SWITCH]},
    "result-error": {"id": 3, "type": "result", "success": False,
                     "error": {"code": "not_found", "message": "Service light.x not found."}},
    "call-result": {"id": 4, "type": "result", "success": True,
                    "result": {"context": {"id": "01HH", "parent_id": None, "user_id": None}}},
    "state-changed": {"id": 1, "type": "event", "event": {
        "event_type": "state_changed", "origin": "LOCAL", "time_fired": "2026-11-24T12:00:01+00:00",
        "data": {"entity_id": "light.desk", "old_state": HA_LIGHT,
                 "new_state": {**HA_LIGHT, "state": "off",
                               "attributes": {"friendly_name": "Desk lamp", "brightness": None}}}}},
    "removed": {"id": 1, "type": "event", "event": {
        "event_type": "state_changed", "data": {"entity_id": "switch.fan_plug",
                                                "old_state": HA_SWITCH, "new_state": None}}},
    "pong": {"id": 9, "type": "pong"},
    "weird-state": {"id": 2, "type": "result", "success": True, "result": [
        {"entity_id": "light.x", "state": "on\u0001\n", "attributes": {
            "friendly_name": "A\u0000very long name " * 30, "brightness": 1e300}},
        {"entity_id": "Light.Bad", "state": "on"}, {"entity_id": "fan.f", "state": 3}]},
    "settings": {"smarthome": {"url": "http://127.0.0.1:8123", "token": "abc",
                               "entities": ["light.desk", "switch.fan_plug"], "verify_tls": False}},
    "settings-path": {"smarthome": {"url": "https://example.com/ha/", "token": "t"}},
    "settings-off": {"smarthome": {"url": "", "token": ""}},
    "settings-bad": {"smarthome": {"url": "ftp://x", "token": 1, "entities": "light.desk"}},
}
for name, value in HA.items():
    write("smarthome_json", name, json.dumps(value))
write("smarthome_json", "not-json", "{\"type\": \"auth_ok\"")
# ---- stream_json: obs-websocket 5 messages as OBS 29 sends them (protocol/README.md).
HELLO = {"op": 0, "d": {"obsWebSocketVersion": "5.1.0", "rpcVersion": 1, "authentication": {
    "challenge": "+IxH4CnCiqpX1rM9scsNynZzbOe4KhDeYcTNS3PDaeY=",
    "salt": "lM1GncleQOaCu9lT1yeUZhFYnqhsLLP1G5lAGo3ixaI="}}}
write("stream_json", "hello", json.dumps(HELLO))
write("stream_json", "hello-open", json.dumps({"op": 0, "d": {"rpcVersion": 1}}))
write("stream_json", "identified", json.dumps({"op": 2, "d": {"negotiatedRpcVersion": 1}}))
write("stream_json", "scene-list", json.dumps({"op": 7, "d": {
    "requestType": "GetSceneList", "requestId": "1",
    "requestStatus": {"result": True, "code": 100},
    "responseData": {"currentPreviewSceneName": None, "currentProgramSceneName": "Intro",
                     "scenes": [{"sceneIndex": 0, "sceneName": "Outro"},
                                {"sceneIndex": 1, "sceneName": "Live"},
                                {"sceneIndex": 2, "sceneName": "Intro"}]}}}))
write("stream_json", "item-list", json.dumps({"op": 7, "d": {
    "requestType": "GetSceneItemList", "requestId": "2",
    "requestStatus": {"result": True, "code": 100},
    "responseData": {"sceneItems": [
        {"inputKind": "color_source_v3", "sceneItemEnabled": True, "sceneItemId": 1,
         "sceneItemIndex": 0, "sourceName": "Backdrop"},
        {"inputKind": "color_source_v3", "sceneItemEnabled": False, "sceneItemId": 2,
         "sceneItemIndex": 1, "sourceName": "Banner"}]}}}))
write("stream_json", "not-found", json.dumps({"op": 7, "d": {
    "requestType": "SetCurrentProgramScene", "requestId": "3",
    "requestStatus": {"result": False, "code": 600, "comment": "No source was found by the name of `Nope`."}}}))
write("stream_json", "event-scene", json.dumps({"op": 5, "d": {
    "eventType": "CurrentProgramSceneChanged", "eventIntent": 4,
    "eventData": {"sceneName": "Live", "sceneUuid": "0b5d6f3e-0000-4000-8000-000000000000"}}}))
write("stream_json", "event-item", json.dumps({"op": 5, "d": {
    "eventType": "SceneItemEnableStateChanged", "eventIntent": 128,
    "eventData": {"sceneName": "Live", "sceneItemId": 2, "sceneItemEnabled": False}}}))
write("stream_json", "event-record", json.dumps({"op": 5, "d": {
    "eventType": "RecordStateChanged", "eventIntent": 64,
    "eventData": {"outputActive": True, "outputState": "OBS_WEBSOCKET_OUTPUT_STARTED",
                  "outputPath": "/home/u/2026-11-24 14-36-52.mkv"}}}))
write("stream_json", "event-scene-list", json.dumps({"op": 5, "d": {
    "eventType": "SceneListChanged", "eventIntent": 4,
    "eventData": {"scenes": [{"sceneIndex": 0, "sceneName": "B"}, {"sceneIndex": 1, "sceneName": "A"}]}}}))
write("stream_json", "batch", json.dumps({"op": 9, "d": {"requestId": "b", "results": []}}))
write("stream_json", "deep", "{\"op\": 5, \"d\": " + "[" * 40 + "]" * 40 + "}")
write("stream_json", "truncated", json.dumps(HELLO)[:60])

# ---- plugin_line: lines a plugin process writes (protocol/README.md, "Plugins") and manifests.
PLUGIN = {
    "ready": {"type": "ready", "hooks": ["on_load", "on_slider_change", "on_macro_execute"]},
    "fatal": {"type": "fatal", "error": "ImportError: No module named 'requests'"},
    "hook-done": {"type": "hook_done", "id": 12, "result": None},
    "hook-done-true": {"type": "hook_done", "id": 13, "result": True},
    "hook-raised": {"type": "hook_done", "id": 14, "error": "ValueError: bad value"},
    "call-serial": {"type": "call", "id": 1, "method": "send_serial", "args": {"command": "PING"}},
    "call-macro": {"type": "call", "id": 2, "method": "trigger_macro", "args": {"index": 3, "page": None}},
    "call-setting": {"type": "call", "id": 3, "method": "set_setting", "args": {"key": "threshold", "value": 85}},
    "call-log": {"type": "call", "method": "log", "args": {"message": "hello", "level": "info"}},
    "manifest": {"id": "io.mixerd.example.slider_alerts", "name": "Slider alerts", "version": "1.0.0",
                 "api_version": "1.0", "type": "executable", "entry_point": "main.py",
                 "main_class": "SliderAlerts",
                 "settings_schema": {"threshold": {"type": "integer", "default": 90, "min": 1, "max": 100},
                                     "ratio": {"type": "number", "default": 0.5},
                                     "alerts": {"type": "boolean", "default": True},
                                     "label": {"type": "string", "default": "x", "description": "d"}}},
    "manifest-incompatible": {"id": "a.b", "name": "n", "version": "1", "api_version": "2.0",
                              "type": "executable", "entry_point": "main.py", "main_class": "P"},
}
for name, value in PLUGIN.items():
    write("plugin_line", name, json.dumps(value))
write("plugin_line", "deep", "{\"type\": \"call\", \"method\": \"log\", \"args\": {\"a\": " + "[" * 100 + "]" * 100 + "}}")
write("plugin_line", "not-object", "[\"ready\"]")
write("plugin_line", "big-id", "{\"type\": \"hook_done\", \"id\": 18446744073709551616}")
write("plugin_line", "truncated", json.dumps(PLUGIN["call-serial"])[:30])
