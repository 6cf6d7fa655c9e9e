"""Macros that trigger each other with no person (finding 4 of the second probe): pairs of
sequences whose http step calls a relay, which triggers the other sequence through mixerd's API.
A relay that passes the X-Mixerd-Macro-Depth header on (as proxies pass headers) ends the chain
after 4 runs caused by runs (508); one that drops it meets the run budgets (a slot 10 runs in
2 s, the daemon 20 in 1 s, 429), and a link refused ends its loop. Each refusal is logged once a
minute, not once a run.
"""
import time

from fault_support import figures, scaled, stop_cleanly
from integration_harness import daemon_factory, data_dir  # noqa: F401 (fixtures)
from integration_harness import get_json, macro_set, wait_until
from macro_support import Relay, outcomes, start_with_macros, trigger, write_settings

PAIRS = scaled(8, 4)
WATCH_S = scaled(10, 4)
DAEMON_BUDGET_PER_S = 20


def sequence(name, relay_port, other):
    return {"type": "sequence", "name": name, "icon": "",
            "steps": [{"type": "http", "url": f"http://127.0.0.1:{relay_port}/trigger/{other}",
                       "method": "POST"}]}


def runs(daemon, pairs):
    return sum(len(outcomes(daemon, f"Loop {i}")) for i in range(2 * pairs))


def start_loops(daemon_factory, data_dir, forward_depth, pairs):
    # The relay needs the daemon's port and the daemon the relay's: start, then write the slots
    # and reload (SIGHUP) once both are known.
    daemon = start_with_macros(daemon_factory, data_dir, {}, allow=())
    relay = Relay(daemon.ports["controller"], forward_depth).__enter__()
    slots = {}
    for i in range(2 * pairs):
        partner = i + 1 if i % 2 == 0 else i - 1
        slots[i] = sequence(f"Loop {i}", relay.port, partner)
    write_settings(data_dir, {"macros": macro_set(slots),
                              "http_macro_allow": [f"127.0.0.1:{relay.port}"]})
    daemon.proc.send_signal(1)
    # The macro actor has read the reload once its view shows the slots.
    wait_until(lambda: get_json(daemon, "/api/macros")["pages"]["0"][0]["name"] == "Loop 0",
               timeout=10, what="the reloaded slots")
    return daemon, relay


def test_a_chain_of_runs_ends_after_four(daemon_factory, data_dir):
    daemon, relay = start_loops(daemon_factory, data_dir, forward_depth=True, pairs=1)
    try:
        assert trigger(daemon, 0)[0] == 200
        time.sleep(3)
        total = runs(daemon, 1)
        refusals = [line for line in daemon.log if "chain of more than 4" in line]
        figures("a loop whose relay passes the depth on", runs_in_3_s=total,
                refusals_logged=len(refusals))
        assert total == 5, "runs at depth 0 to 4, then the chain is refused"
        assert len(refusals) == 1
    finally:
        relay.__exit__(None, None, None)
    stop_cleanly(daemon)


def test_loops_without_the_depth_are_held_to_the_run_budgets(daemon_factory, data_dir):
    daemon, relay = start_loops(daemon_factory, data_dir, forward_depth=False, pairs=PAIRS)
    try:
        for pair in range(PAIRS):
            assert trigger(daemon, 2 * pair)[0] == 200
        time.sleep(1)  # the budgets are full from here on
        first = runs(daemon, PAIRS)
        started = time.monotonic()
        time.sleep(WATCH_S)
        per_second = (runs(daemon, PAIRS) - first) / (time.monotonic() - started)
        refusals = [line for line in daemon.log if "refused:" in line]
        figures("loops whose relay drops the depth", pairs=PAIRS, seconds=WATCH_S,
                runs_per_second=round(per_second, 1), refusal_lines=len(refusals))
        assert per_second <= DAEMON_BUDGET_PER_S + 1
        # At most one line per slot and reason in the minute (two reasons).
        assert 0 < len(refusals) <= 2 * 2 * PAIRS
    finally:
        relay.__exit__(None, None, None)
    stop_cleanly(daemon)


# A plugin whose on_macro_execute triggers the other slot of its pair: a loop through a plugin.
PING_PONG = r'''
import threading

from mixerd import Plugin


class Recorder(Plugin):  # the main_class the test manifest names
    def on_macro_execute(self, macro):
        name = macro.get("name", "")
        if name.startswith("Loop "):
            other = 1 - int(name[5:])
            # Once this run has ended (a slot still running is 409), within the second in which
            # the plugin counts as woken by it.
            threading.Timer(0.2, lambda: self.trigger_macro(other, 0)).start()
        return False
'''


def test_a_loop_through_a_plugin_ends_after_four(daemon_factory, data_dir):
    from plugin_support import install, wait_state  # tests/integration, on the path
    plugin = install(data_dir, "test.loops.pingpong", source=PING_PONG, control=False)
    delay = {"type": "delay", "ms": 10}
    daemon = start_with_macros(daemon_factory, data_dir, {
        0: {"type": "sequence", "name": "Loop 0", "icon": "", "steps": [delay]},
        1: {"type": "sequence", "name": "Loop 1", "icon": "", "steps": [delay]},
    }, allow=())
    wait_state(daemon, plugin.id, "running")
    assert trigger(daemon, 0)[0] == 200
    time.sleep(3)
    total = runs(daemon, 1)
    refusals = [line for line in daemon.log if "chain of more than 4" in line]
    figures("a loop through a plugin's on_macro_execute", runs_in_3_s=total,
            refusals_logged=len(refusals))
    assert total <= 5
    assert len(refusals) == 1
    stop_cleanly(daemon)
