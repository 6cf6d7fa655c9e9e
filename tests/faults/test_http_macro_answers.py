"""An http macro against a server that answers without end (finding 1 of the second probe): a
body that never ends and header lines that never end. The answer is read up to its limit (1 MiB
of body, 16 KiB of header), then the connection is closed and the step fails; nothing keeps
reading after the step ended, so triggering again never stacks readers, and the memory comes
back.
"""
import time

from fault_support import SANITIZED, RssSampler, figures, rss_kib, scaled, stop_cleanly
from integration_harness import daemon_factory, data_dir  # noqa: F401 (fixtures)
from macro_support import (ScriptedServer, endless_body, endless_headers, http_macro,
                           start_with_macros, trigger, wait_outcomes)

ROUNDS = scaled(8, 3)
# What the daemon may keep after the rounds: its allocator's pools, not the answers.
RSS_GROWTH_LIMIT_KIB = 32 * 1024


def test_endless_answers_are_cut_at_their_limits_and_the_memory_comes_back(daemon_factory,
                                                                           data_dir):
    with ScriptedServer(endless_body) as body, ScriptedServer(endless_headers) as headers:
        daemon = start_with_macros(daemon_factory, data_dir, {
            0: http_macro("Body", body.url("/stream")),
            1: http_macro("Headers", headers.url("/headers")),
        })
        pid = daemon.proc.pid
        before = rss_kib(pid)
        started = time.monotonic()
        with RssSampler(pid, interval=0.2) as sampler:
            for r in range(ROUNDS):
                assert trigger(daemon, 0)[0] == 200
                assert trigger(daemon, 1)[0] == 200
                body_outcomes = wait_outcomes(daemon, "Body", r + 1, timeout=20)
                header_outcomes = wait_outcomes(daemon, "Headers", r + 1, timeout=20)
        seconds = time.monotonic() - started
        after = rss_kib(pid)
        peak = max(kib for _, kib in sampler.samples)
        # The servers see each connection closed by the daemon; none outlives its step.
        time.sleep(0.5)
        figures("http macro answers without end", rounds=ROUNDS, seconds=round(seconds, 1),
                rss_before_kib=before, rss_peak_kib=peak, rss_after_kib=after,
                most_open_body=body.most_open, most_open_headers=headers.most_open,
                longest_connection_s=round(max(body.durations + headers.durations, default=0), 2),
                body_outcome=body_outcomes[-1], header_outcome=header_outcomes[-1])
        limit = "the answer passed its limit (16 KiB of header, 1024 KiB of body)"
        assert set(body_outcomes) == {limit} and set(header_outcomes) == {limit}
        assert body.most_open == 1 and headers.most_open == 1, "readers stacked up"
        assert max(body.durations + headers.durations) < 5.5, "a reader went on past the deadline"
        if not SANITIZED:
            assert peak - before < RSS_GROWTH_LIMIT_KIB, (before, peak)
            assert after - before < RSS_GROWTH_LIMIT_KIB, (before, after)
        stop_cleanly(daemon)
