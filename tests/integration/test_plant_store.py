"""The sample plant store (docs/api.md, section 5) on its own port:
bearer token, DATA_DIR/plants.json, atomic deletes, the {"error": <int>, "message": ...} body."""
import http.client
import json
import os
import signal
import stat
import threading

import pytest

from conftest import get_json, reply_of, wait_until

SAMPLE_IDS = list(range(1, 11))
INT64_MAX = 2**63 - 1


def token_of(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)["plant_store_token"]


def plants_path(data_dir):
    return os.path.join(data_dir, "plants.json")


def read_plants(data_dir):
    with open(plants_path(data_dir)) as f:
        return json.load(f)


def write_plants(data_dir, content):
    os.makedirs(data_dir, exist_ok=True)
    with open(plants_path(data_dir), "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content, indent=2))


def request(d, method, target, headers=None, conn=None):
    """Raw request on the plant store port (the target is sent as given). Returns
    (status, parsed JSON body or raw text, headers)."""
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", d.ports["plant store"], timeout=5)
    try:
        conn.putrequest(method, target, skip_accept_encoding=True)
        for name, value in (headers or []):
            conn.putheader(name, value)
        conn.endheaders()
        return reply_of(conn.getresponse())
    finally:
        if own:
            conn.close()


def bearer(token):
    return [("Authorization", "Bearer " + token)]


def assert_error(status, body, expected):
    assert status == expected, (status, body)
    assert isinstance(body, dict) and set(body) == {"error", "message"}, body
    assert body["error"] == expected and isinstance(body["message"], str) and body["message"]


@pytest.fixture
def store(daemon_factory, data_dir):
    d = daemon_factory("--serial", "none")
    d.wait_log("wrote 10 sample plants to " + plants_path(data_dir))  # loaded after "ready"
    return d, token_of(data_dir)


def test_first_start_writes_sample_plants(store, data_dir):
    plants = read_plants(data_dir)
    assert [p["id"] for p in plants] == SAMPLE_IDS
    assert all(isinstance(p["name"], str) and p["name"] for p in plants)
    assert stat.S_IMODE(os.stat(plants_path(data_dir)).st_mode) == 0o600


def test_delete_answers_204_then_400_and_the_file_loses_the_plant(store, data_dir):
    d, token = store
    before = read_plants(data_dir)
    status, body, headers = request(d, "DELETE", "/plants/3", bearer(token))
    assert status == 204 and body == ""
    assert headers.get("Content-Length") in (None, "0") and headers.get("Content-Type") is None
    assert read_plants(data_dir) == [p for p in before if p["id"] != 3]
    status, body, _ = request(d, "DELETE", "/plants/3", bearer(token))
    assert_error(status, body, 400)
    assert "3" in body["message"]
    assert read_plants(data_dir) == [p for p in before if p["id"] != 3]


def test_deleted_plant_stays_deleted_after_restart(daemon_factory, store, data_dir):
    d, token = store
    assert request(d, "DELETE", "/plants/10", bearer(token))[0] == 204
    d.stop()
    d2 = daemon_factory("--serial", "none")
    assert [p["id"] for p in read_plants(data_dir)] == SAMPLE_IDS[:-1]
    assert_error(*request(d2, "DELETE", "/plants/10", bearer(token))[:2], 400)
    assert request(d2, "DELETE", "/plants/9", bearer(token))[0] == 204


@pytest.mark.parametrize("headers", [
    [],
    [("Authorization", "")],
    [("Authorization", "Bearer")],
    [("Authorization", "Bearer ")],
    [("Authorization", "Basic dXNlcjpwYXNz")],
    [("Authorization", "Token {t}")],
    [("Authorization", "{t}")],
    [("Authorization", "Bearer {t}x")],
    [("Authorization", "Bearer {t} {t}")],
    [("Authorization", "Bearer \"{t}\"")],
    [("Authorization", "Bearer {t},")],
    [("Authorization", "Bearer wrong")],
    [("Authorization", "Bearer " + "a" * 2000)],
    [("Authorization", "Bearer {t}"), ("Authorization", "Bearer {t}")],
    [("X-API-Key", "{t}")],
], ids=["none", "empty", "no-token", "no-token-space", "basic", "other-scheme", "no-scheme",
        "wrong-token", "two-tokens", "quoted", "comma", "wrong", "overlong", "header-twice",
        "api-key-header"])
def test_missing_or_wrong_token_is_401_with_www_authenticate(store, data_dir, headers):
    d, token = store
    before = open(plants_path(data_dir), "rb").read()
    sent = [(n, v.format(t=token)) for n, v in headers]
    for target in ("/plants/1", "/plants/abc", "/plants/999"):  # the token is checked first
        status, body, hdrs = request(d, "DELETE", target, sent)
        assert_error(status, body, 401)
        assert hdrs.get("WWW-Authenticate") == "Bearer"
    assert open(plants_path(data_dir), "rb").read() == before


def test_scheme_is_case_insensitive(store):
    d, token = store
    assert request(d, "DELETE", "/plants/1", [("Authorization", "bearer " + token)])[0] == 204
    assert request(d, "DELETE", "/plants/2", [("authorization", "BEARER  " + token)])[0] == 204


@pytest.mark.parametrize("segment", [
    "abc", "1.5", "1e3", "0x1", "+1", "1a", "%201", "1%20", "-", "%D9%A3", "true",
    "9223372036854775808", "-9223372036854775809", "1" * 40, "",
])
def test_id_that_is_not_an_int64_is_400(store, data_dir, segment):
    d, token = store
    before = open(plants_path(data_dir), "rb").read()
    status, body, _ = request(d, "DELETE", "/plants/" + segment, bearer(token))
    assert_error(status, body, 400)
    assert "int" in body["message"]
    assert open(plants_path(data_dir), "rb").read() == before


@pytest.mark.parametrize("plant_id", ["0", "11", "-1", str(INT64_MAX), str(-2**63)])
def test_unknown_id_is_400(store, plant_id):
    d, token = store
    status, body, _ = request(d, "DELETE", "/plants/" + plant_id, bearer(token))
    assert_error(status, body, 400)
    assert body["message"] == "No plant with id " + plant_id


def test_query_string_and_percent_encoded_digits(store, data_dir):
    d, token = store
    assert request(d, "DELETE", "/plants/%34?force=1", bearer(token))[0] == 204
    assert 4 not in [p["id"] for p in read_plants(data_dir)]


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "OPTIONS", "HEAD"])
def test_other_methods_are_405_with_allow(store, data_dir, method):
    d, token = store
    status, body, hdrs = request(d, method, "/plants/1", bearer(token))
    assert status == 405 and hdrs.get("Allow") == "DELETE"
    if method != "HEAD":
        assert_error(status, body, 405)
    assert 1 in [p["id"] for p in read_plants(data_dir)]


@pytest.mark.parametrize("target", ["/", "/plants", "/plants/1/", "/plants/1/leaves",
                                    "/plants//1", "/plant/1", "/plantsx/1", "/api/plants/1"])
def test_unknown_paths_are_404(store, target):
    d, token = store
    for method in ("DELETE", "GET"):
        status, body, _ = request(d, method, target, bearer(token))
        assert_error(status, body, 404)


def test_broken_plants_json_is_reported_and_never_overwritten(daemon_factory, data_dir):
    broken = '[\n  {"id": 1, "name": "Fern"},\n  {"id": 2, "name": \n'
    write_plants(data_dir, broken)
    mtime = os.stat(plants_path(data_dir)).st_mtime_ns
    d = daemon_factory("--serial", "none")
    line = d.wait_log("plants.json: not valid JSON")
    assert plants_path(data_dir) in line and "503" in line
    token = token_of(data_dir)
    assert_error(*request(d, "DELETE", "/plants/1")[:2], 401)
    status, body, _ = request(d, "DELETE", "/plants/1", bearer(token))
    assert_error(status, body, 503)
    assert "plants.json" in body["message"] and "not valid JSON" in body["message"]
    assert_error(*request(d, "DELETE", "/plants/x", bearer(token))[:2], 400)
    # The rest of the daemon is unaffected.
    assert get_json(d, "/api/volume/master") == {"volume": 50}
    assert open(plants_path(data_dir)).read() == broken
    assert os.stat(plants_path(data_dir)).st_mtime_ns == mtime

    # Fixed, then SIGHUP: the store loads it.
    write_plants(data_dir, [{"id": 1, "name": "Fern"}, {"id": 2, "name": "Moss"}])
    d.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: request(d, "DELETE", "/plants/999", bearer(token))[0] == 400,
               what="the fixed plants.json to be loaded")
    assert request(d, "DELETE", "/plants/2", bearer(token))[0] == 204
    assert read_plants(data_dir) == [{"id": 1, "name": "Fern"}]


@pytest.mark.parametrize("content, problem", [
    ('{"id": 1, "name": "a"}', "must be a JSON array"),
    ('[{"id": 1, "name": "a"}, {"id": 1, "name": "b"}]', "id 1 appears more than once"),
    ('[{"id": "1", "name": "a"}]', '"id" must be an integer'),
    ('[{"id": 1}]', '"name" must be a string'),
    ("", "empty"),
])
def test_invalid_plant_list_is_503_and_untouched(daemon_factory, data_dir, content, problem):
    write_plants(data_dir, content)
    d = daemon_factory("--serial", "none")
    d.wait_log(problem)
    status, body, _ = request(d, "DELETE", "/plants/1", bearer(token_of(data_dir)))
    assert_error(status, body, 503)
    assert problem in body["message"]
    assert open(plants_path(data_dir)).read() == content


def test_user_plants_keep_their_extra_keys(daemon_factory, data_dir):
    plants = [{"id": 7, "name": "Fern", "watered": "2024-05-01"}, {"id": -4, "name": "Moss"}]
    write_plants(data_dir, plants)
    d = daemon_factory("--serial", "none")
    assert request(d, "DELETE", "/plants/-4", bearer(token_of(data_dir)))[0] == 204
    assert read_plants(data_dir) == plants[:1]


def test_token_follows_settings_on_sighup(store, data_dir):
    d, old = store
    path = os.path.join(data_dir, "settings.json")
    with open(path) as f:
        settings = json.load(f)
    new = "b" * 64
    settings["plant_store_token"] = new
    with open(path, "w") as f:
        json.dump(settings, f)
    d.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: request(d, "DELETE", "/plants/999", bearer(new))[0] == 400,
               what="the new token to be accepted")
    assert_error(*request(d, "DELETE", "/plants/1", bearer(old))[:2], 401)
    assert request(d, "DELETE", "/plants/1", bearer(new))[0] == 204


def burst_of_deletes(d, token, ids, deleted, unexpected, stop, lock):
    """Deletes ids from the shared list until it is empty, `stop` is set or the daemon dies."""
    conn = http.client.HTTPConnection("127.0.0.1", d.ports["plant store"], timeout=5)
    try:
        while not stop.is_set():
            with lock:
                if not ids:
                    return
                plant_id = ids.pop()
            status, body, _ = request(d, "DELETE", f"/plants/{plant_id}", bearer(token), conn)
            with lock:
                if status == 204:
                    deleted.add(plant_id)
                else:
                    unexpected.append((plant_id, status, body))
    except (OSError, http.client.HTTPException):
        pass  # killed mid-request
    finally:
        conn.close()


@pytest.mark.parametrize("round_", range(3))
def test_kill_9_during_a_burst_of_deletes_leaves_a_consistent_file(daemon_factory, data_dir, round_):
    original = [{"id": i, "name": f"Plant {i}"} for i in range(1, 3001)]
    write_plants(data_dir, original)
    d = daemon_factory("--serial", "none")
    token = token_of(data_dir)
    ids = [p["id"] for p in original]
    requested = set(ids[len(ids) // 2:])
    todo = sorted(requested)
    deleted, unexpected, stop, lock = set(), [], threading.Event(), threading.Lock()
    threads = [threading.Thread(target=burst_of_deletes,
                                args=(d, token, todo, deleted, unexpected, stop, lock))
               for _ in range(8)]
    for t in threads:
        t.start()
    wait_until(lambda: len(deleted) >= 40 + 40 * round_, timeout=30, what="deletes under way")
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(timeout=10)
    stop.set()
    for t in threads:
        t.join(timeout=10)
    assert not unexpected
    assert len(deleted) < len(requested), "the burst ended before the kill"

    plants = read_plants(data_dir)  # parses: never torn
    assert isinstance(plants, list)
    got = [p["id"] for p in plants]
    assert len(got) == len(set(got))
    assert all(p == {"id": p["id"], "name": f"Plant {p['id']}"} for p in plants)
    assert not deleted & set(got), "a plant answered 204 is still in the file"
    assert set(ids) - requested <= set(got), "a plant nobody deleted is gone"
    assert set(got) <= set(ids)
    leftovers = [n for n in os.listdir(data_dir) if n.startswith(".plants.json.")]

    # The next start loads the file as it is and clears the temporary file a kill left.
    d2 = daemon_factory("--serial", "none")
    d2.wait_log(f"{len(got)} plants in ")
    assert [n for n in os.listdir(data_dir) if n.startswith(".plants.json.")] == []
    assert len(leftovers) <= 1
    victim = next(iter(set(got) & requested), None) or got[0]
    assert request(d2, "DELETE", f"/plants/{victim}", bearer(token))[0] == 204
