"""Who may aim mixerd at the network, and where (finding 3 of the second probe). An http macro is
refused when it targets this machine (loopback, the machine's own name and addresses) or a
link-local address that http_macro_allow does not name, and mixerd's own listeners always; the
check runs when it is saved and again after the name lookup. The outcome of a refused target
reads as a closed port. With login off only a client on loopback whose request no other web page
made may store one; a page of another origin cannot write without a preflight (415 for a
text/plain trigger).
"""
import socket

from fault_support import figures, stop_cleanly
from integration_harness import (daemon_factory, data_dir, get_json, http,  # noqa: F401
                                 other_address)
from macro_support import (ScriptedServer, http_macro, silent, start_with_macros, trigger,
                           wait_outcomes)

EVIL = {"Origin": "http://evil.example"}


def test_targets_on_this_machine_are_refused_and_read_as_closed(daemon_factory, data_dir):
    with ScriptedServer(silent) as server:
        daemon = start_with_macros(daemon_factory, data_dir, {}, allow=())
        own = daemon.ports["controller"]
        put = lambda index, macro, headers=None: http(  # noqa: E731
            "PUT", daemon.url(f"/api/macros/0/{index}"), macro, headers=headers)[:2]
        loopback = put(0, http_macro("Local", server.url("/x")))
        own_listener = put(1, http_macro("Self", f"http://127.0.0.1:{own}/api/macros/trigger"))
        metadata = put(2, http_macro("Cloud", "http://169.254.169.254/latest/meta-data"))
        # A name is saved (its address is not known yet) and refused once it is resolved: the
        # machine's own name points at the machine.
        name = socket.gethostname()
        by_name = put(3, http_macro("Name", f"http://{name}:{server.port}/x"))
        assert by_name[0] == 200, by_name
        assert trigger(daemon, 3)[0] == 200
        name_outcome = wait_outcomes(daemon, "Name", 1)[0]
        figures("http macro targets", loopback=loopback[0], own_listener=own_listener[0],
                link_local=metadata[0], by_name=name_outcome, server_connections=server.accepted)
        assert loopback == (400, {"error": f"url targets this machine's address (127.0.0.1:"
                                           f"{server.port}); name it in http_macro_allow to "
                                           f"allow it"})
        assert own_listener[0] == 400 and "own listener" in own_listener[1]["error"]
        assert metadata[0] == 400 and "link-local" in metadata[1]["error"]
        assert name_outcome == f"could not reach {name}"
        assert server.accepted == 0, "a refused target was connected to"
        stop_cleanly(daemon)


def test_a_refused_target_and_a_closed_port_read_the_same(daemon_factory, data_dir):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    with ScriptedServer(silent) as server:
        daemon = start_with_macros(daemon_factory, data_dir, {
            0: http_macro("Closed", f"http://localhost:{port}/"),
            1: http_macro("Refused", f"http://localhost:{server.port}/"),
        }, allow=(f"localhost:{port}",))
        trigger(daemon, 0)
        trigger(daemon, 1)
        closed_outcome = wait_outcomes(daemon, "Closed", 1)[0]
        refused_outcome = wait_outcomes(daemon, "Refused", 1)[0]
        assert closed_outcome == refused_outcome == "could not reach localhost"
        assert server.accepted == 0
        stop_cleanly(daemon)


def test_only_a_local_client_of_no_other_origin_may_store_one(daemon_factory, data_dir):
    daemon = start_with_macros(daemon_factory, data_dir, {}, allow=(), args=("--bind", "0.0.0.0"))
    lan = f"http://{other_address()}:{daemon.ports['controller']}"
    hook = http_macro("Hook", "http://192.0.2.50/hook")
    from_lan = http("PUT", lan + "/api/macros/0/0", hook)[:2]
    from_page = http("PUT", daemon.url("/api/macros/0/1"), hook, headers=EVIL)[:2]
    in_sequence = http("PUT", lan + "/api/macros/0/2",
                       {"type": "sequence", "name": "Seq", "steps": [hook]})[:2]
    # The live controls work from anywhere, as before.
    mute = http("PUT", lan + "/api/macros/0/3", {"type": "mute", "target": 1})[0]
    local = http("PUT", daemon.url("/api/macros/0/4"), hook)[0]
    figures("who may store an http macro", from_lan=from_lan[0], from_other_origin=from_page[0],
            sequence_from_lan=in_sequence[0], mute_from_lan=mute, from_loopback=local)
    for status, body in (from_lan, from_page, in_sequence):
        assert status == 403 and "login" in body["error"] and "loopback" in body["error"], body
    assert (mute, local) == (200, 200)
    assert get_json(daemon, "/api/macros")["pages"]["0"][0]["type"] == "none"
    stop_cleanly(daemon)


def test_a_page_of_another_origin_cannot_write_without_a_preflight(daemon_factory, data_dir):
    with ScriptedServer(silent) as server:
        daemon = start_with_macros(daemon_factory, data_dir,
                                   {0: http_macro("Hook", server.url("/x"))})
        body = b'{"index": 0, "page": 0}'
        simple = http("POST", daemon.url("/api/macros/trigger"), body,
                      headers={**EVIL, "Content-Type": "text/plain;charset=UTF-8"})[:2]
        form = http("DELETE", daemon.url("/api/macros/0/0"), None,
                    headers={**EVIL, "Content-Type": "application/x-www-form-urlencoded"})[:2]
        # What a preflight then allows: JSON, as from any client of the network.
        preflighted = http("POST", daemon.url("/api/macros/trigger"), body,
                           headers={**EVIL, "Content-Type": "application/json"})[0]
        figures("cross-origin writes", text_plain=simple[0], form=form[0], json=preflighted)
        assert simple[0] == 415 and "application/json" in simple[1]["error"]
        assert form[0] == 415
        assert preflighted == 200
        wait_outcomes(daemon, "Hook", 1)
        assert server.accepted == 1, "only the preflighted trigger ran"
        stop_cleanly(daemon)
