"""http macros against a server that takes the request and never answers (finding 2 of the
second probe): every slot triggered, round after round, from a client with no login. No thread
is made per request (the one client runs on the io thread), at most 8 requests are in flight
(the others fail at once, saying so), each ends at its 5 s deadline, and the macros keep working
afterwards: no route answers 503.
"""
import time

from fault_support import figures, scaled, stop_cleanly, thread_count
from integration_harness import daemon_factory, data_dir, get_json  # noqa: F401 (fixtures)
from macro_support import (ScriptedServer, http_macro, outcomes, silent, start_with_macros,
                           trigger)

ROUNDS = scaled(3, 2)
SLOTS = [(page, index) for page in range(4) for index in range(9)]
BUSY = "too many http requests are running (at most 8 at once); try again when one ends"


def test_a_server_that_never_answers_costs_no_thread_and_no_actor(daemon_factory, data_dir):
    with ScriptedServer(silent) as server:
        daemon = start_with_macros(daemon_factory, data_dir, {
            slot: http_macro(f"Slow {slot[0]}.{slot[1]}", server.url(f"/{slot[0]}/{slot[1]}"))
            for slot in SLOTS})
        pid = daemon.proc.pid
        threads_before = thread_count(pid)
        most_threads = threads_before
        for r in range(ROUNDS):
            for page, index in SLOTS:
                # 60 ms apart: within the daemon's budget of 20 runs a second.
                assert trigger(daemon, index, page)[0] == 200
                most_threads = max(most_threads, thread_count(pid))
                time.sleep(0.06)
            # Every run of the round ends: 8 at their deadline, the rest at once.
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                finished = sum(len(outcomes(daemon, f"Slow {p}.{i}")) for p, i in SLOTS)
                if finished >= (r + 1) * len(SLOTS):
                    break
                time.sleep(0.1)
                most_threads = max(most_threads, thread_count(pid))
        threads_after = thread_count(pid)
        every = [o for p, i in SLOTS for o in outcomes(daemon, f"Slow {p}.{i}")]
        figures("http macros against a silent server", rounds=ROUNDS, triggers=ROUNDS * len(SLOTS),
                threads_before=threads_before, threads_most=most_threads,
                threads_after=threads_after, most_open_requests=server.most_open,
                timed_out=every.count("no answer within 5 s"), refused_busy=every.count(BUSY))
        assert len(every) == ROUNDS * len(SLOTS)
        assert set(every) <= {"no answer within 5 s", BUSY}
        assert server.most_open <= 8
        assert every.count(BUSY) > 0
        assert most_threads - threads_before <= 2, "threads grew with the requests"
        # The capability still runs: its routes answer and a macro starts.
        assert get_json(daemon, "/api/macros")["pages"]["0"][0]["name"] == "Slow 0.0"
        assert trigger(daemon, 0, 0)[0] == 200
        stop_cleanly(daemon)
