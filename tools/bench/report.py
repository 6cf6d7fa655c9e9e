"""The issue's targets, checked against run.py's result, and the table printed on stdout."""

MB = 1_000_000  # targets are in MB (10^6 bytes); /proc gives KiB


def _mb(kib):
    return kib * 1024 / MB if kib is not None else None


def targets(r):
    """[{name, value, limit, unit, pass}] for every benchmark target (README, Benchmarks)."""
    out = []
    many = r["config"]["many"]
    for transport in ("websocket", "default"):
        phase = r["mixerd"]["serial"][f"{transport}_{many}"]
        ratio = phase["p99_to_floor"]["median"]
        out.append({"name": f"serial->event p99 / floor p99, {many} clients ({transport}; "
                            "median of the chunk pairs, no event lost)",
                    "value": ratio, "limit": 1.5, "unit": "x",
                    "pass": ratio is not None and ratio <= 1.5 and phase["lost"] == 0})
        # The target is for 10 s at 200 lines/s; a --quick run is scaled up to that.
        cpu = round(phase["server_cpu_s"] * 2000 / phase["lines"], 2)
        out.append({"name": f"mixerd CPU in the {many}-client serial phase ({transport}, "
                            "per 2,000 lines)",
                    "value": cpu, "limit": 0.5, "unit": "CPU-s", "pass": cpu < 0.5})
    rps = r["mixerd"]["http"]["requests_per_s"]
    out.append({"name": "GET /api/sliders throughput (wrk -t2 -c50)", "value": rps,
                "limit": 100_000, "unit": "req/s", "pass": rps is not None and rps > 100_000})
    idle = _mb(r["idle"]["rss_kib"])
    out.append({"name": "idle RSS", "value": round(idle, 2), "limit": 8, "unit": "MB",
                "pass": idle < 8})
    loaded = max(_mb(m["rss_kib"]) for k, m in r["mixerd"]["memory_with_clients"].items()
                 if k.endswith(f"_{many}"))
    out.append({"name": f"RSS with {many} clients", "value": round(loaded, 2), "limit": 12,
                "unit": "MB", "pass": loaded < 12})
    start = r["startup"]["median_ms"]
    out.append({"name": "start-up, exec to first HTTP answer (median)", "value": start,
                "limit": 30, "unit": "ms", "pass": start < 30})
    return out


def _f(v, width=8, digits=2):
    if v is None:
        return "-".rjust(width)
    return f"{v:{width}.{digits}f}"


def _ratio(v, floor):
    if v is None or not floor:
        return "-".rjust(7)
    return f"{v / floor:6.1f}x"


def _latency_row(label, phase, floor=None):
    lat = phase["latency_ms"]
    fl = floor["latency_ms"] if floor else {}
    lost = phase.get("lost", 0)
    paired = phase.get("p99_to_floor", {}).get("median")
    paired = f"{paired:6.2f}x" if paired is not None else "-".rjust(7)
    return (f"{label:<44}{_f(lat.get('p50'))}{_f(lat.get('p90'))}{_f(lat.get('p99'))}"
            f"{_f(lat.get('max'))}{lost:>6} {_ratio(lat.get('p50'), fl.get('p50'))}"
            f" {_ratio(lat.get('p99'), fl.get('p99'))} {paired}")


def _memory(m):
    return (f"RSS {_mb(m['rss_kib']):5.2f} MB, PSS {_mb(m['pss_kib']):5.2f} MB "
            f"(anon {_mb(m['pss_anon_kib'] or 0):4.2f}), {m['threads']} threads, "
            f"{m['open_fds']} fds")


def _user_system(figures):
    return f"{figures['server_cpu_user_s']} s user + {figures['server_cpu_system_s']} s system"


def _cpu_per_event(phase):
    per = 1e6 / max(1, phase["events_received"])
    return (f"{phase['server_cpu_us_per_event']:.1f} ({phase['server_cpu_user_s'] * per:.1f} + "
            f"{phase['server_cpu_system_s'] * per:.1f}) / {phase['client_cpu_us_per_event']:.1f}")


def table(r):
    many = r["config"]["many"]
    m, fl = r["mixerd"], r["floor"]
    machine = r["machine"]
    lines = [
        f"mixerd benchmark ({'quick' if r['quick'] else 'full'} run, {machine['cpus']} CPUs, "
        f"load {machine['loadavg_start']} -> {machine['loadavg_end']}, "
        f"{r['config']['rate']} lines/s for {r['config']['seconds']} s per phase, "
        f"clock shared: {fl['clock']['shared']})",
    ]
    if max(machine["loadavg_start"][0], machine["loadavg_end"][0]) > machine["cpus"] / 2:
        lines.append("NOTE: the machine was busy (load average above half its CPUs): latencies "
                     "and throughput are noisy, compare with the floor of the same run")
    lines += [
        "",
        f"{'latency in ms, every (line, client) pair':<44}{'p50':>8}{'p90':>8}{'p99':>8}"
        f"{'max':>8}{'lost':>6} {'p50/fl':>7} {'p99/fl':>7} {'pairs':>7}",
        _latency_row("floor: pty write -> read", fl["pty"]),
        _latency_row("floor: pty -> bare ws server, 1 client", fl["ws_1"]),
        _latency_row(f"floor: pty -> bare ws server, {many} clients", fl[f"ws_{many}"]),
    ]
    for transport in ("websocket", "default"):
        for n in (1, many):
            lines.append(_latency_row(f"serial -> slider_change, {transport}, {n}",
                                      m["serial"][f"{transport}_{n}"], fl[f"ws_{n}"]))
    for n in (1, many):
        lines.append(_latency_row(f"REST POST -> slider_change, websocket, {n}",
                                  m["rest"][f"websocket_{n}"], fl[f"ws_{n}"]))
    lines.append("  p50/fl, p99/fl: to the floor row with as many clients (whole phase); pairs: "
                 "median over the chunk pairs of")
    lines.append("  (mixerd chunk p99 / p99 of the floor chunk sent just before it), the measure "
                 "of the 1.5x target")
    lines += [
        "",
        f"{'throughput, wrk -t2 -c50 keep-alive':<44}{'req/s':>10}{'p50 ms':>8}{'p99 ms':>8}",
        f"{'GET /api/sliders, mixerd':<44}{m['http']['requests_per_s'] or 0:>10.0f}"
        f"{_f(m['http'].get('p50_ms'))}{_f(m['http'].get('p99_ms'))}"
        f"   (server CPU {_user_system(m['http'])})",
        f"{'same body, bare Beast server (floor)':<44}{fl['http']['requests_per_s'] or 0:>10.0f}"
        f"{_f(fl['http'].get('p50_ms'))}{_f(fl['http'].get('p99_ms'))}"
        f"   (server CPU {_user_system(fl['http'])})",
        "",
        f"CPU per delivered event in the serial phases, us: server (user + system) / node "
        f"clients; mixerd's total for its {r['config']['seconds'] * r['config']['rate']} lines "
        "in brackets:",
    ]
    for n in (1, many):
        row = [f"floor {_cpu_per_event(fl[f'ws_{n}'])}"]
        for transport in ("websocket", "default"):
            p = m["serial"][f"{transport}_{n}"]
            row.append(f"mixerd {transport} {_cpu_per_event(p)} ({p['server_cpu_s']} CPU-s)")
        lines.append(f"  {n:>3} client(s): " + ", ".join(row))
    lines += [
        "",
        f"idle:               {_memory(r['idle'])}, CPU {r['idle']['cpu_percent']} %",
        "  threads: " + ", ".join(r["idle"]["thread_names"]),
        "  largest resident mappings, MB: " + ", ".join(
            f"{name} {_mb(kib):.2f}" for name, kib in r["idle"]["rss_by_mapping_kib"].items()),
    ]
    for transport in ("websocket", "default"):
        mem = m["memory_with_clients"][f"{transport}_{many}"]
        lines.append(f"{many} clients ({transport[:3]}): {_memory(mem)}")
    lines.append(f"after wrk:          {_memory(m['memory_after_wrk'])}")
    lines.append(f"floor server, {many} clients: {_memory(fl[f'ws_{many}']['server_memory'])}")
    s = r["startup"]
    lines.append(f"start-up (exec -> first 200 answer): median {s['median_ms']} ms, min "
                 f"{s['min_ms']}, max {s['max_ms']} over {s['runs']}; first start (creates the "
                 f"data folder's files) {s['first_start_ms']} ms")
    if r.get("codec_ns_per_op"):
        lines.append("device codec (codec_bench): " + ", ".join(
            f"{name} {ns:.0f} ns" for name, ns in r["codec_ns_per_op"].items()))
    lines += ["", "targets:"]
    for t in r["targets"]:
        lines.append(f"  {'PASS' if t['pass'] else 'MISS'}  {t['name']}: {t['value']} {t['unit']}"
                     f" (limit {t['limit']:,} {t['unit']})")
    problems = [f"{k}: {p['lost']} lost, {p['unexpected']} unexpected, "
                f"{len(p['disconnects'])} disconnects"
                for group in (fl, m["serial"], m["rest"]) for k, p in group.items()
                if isinstance(p, dict) and "disconnects" in p
                and (p["lost"] or p["unexpected"] or p["disconnects"])]
    if problems:
        lines += ["", "events not delivered as sent:"] + [f"  {p}" for p in problems]
    return "\n".join(lines)


def _lat(phase):
    lat = phase["latency_ms"]
    return f"{lat['p50']:.2f} / {lat['p90']:.2f} / {lat['p99']:.2f} / {lat['max']:.1f}"


def markdown(r):
    """The README's table: `/usr/bin/python3 tools/bench/report.py build/bench/results.json`."""
    many = r["config"]["many"]
    m, fl = r["mixerd"], r["floor"]
    verdict = {t["name"]: ("PASS" if t["pass"] else "MISS") for t in r["targets"]}
    by_start = {name.split(",")[0].split(" (")[0]: v for name, v in verdict.items()}
    rows = ["| What | mixerd | floor (same run) | ratio | target |", "|---|---|---|---|---|"]
    rows.append(f"| pty write -> read (ms p50 / p90 / p99 / max) | | {_lat(fl['pty'])} | | |")
    for n in (1, many):
        for transport in ("websocket", "default"):
            p = m["serial"][f"{transport}_{n}"]
            f = fl[f"ws_{n}"]
            target = ""
            if n == many:
                target = (f"{verdict[next(k for k in verdict if transport in k and 'p99' in k)]}"
                          " (p99 <= 1.5x floor)")
            rows.append(f"| serial line -> `slider_change`, {transport}, {n} client(s) (ms p50 / "
                        f"p90 / p99 / max; {p['lost']} lost) | {_lat(p)} | {_lat(f)} | "
                        f"p99 {p['p99_to_floor']['median']}x | {target} |")
        p = m["rest"][f"websocket_{n}"]
        rows.append(f"| REST POST -> `slider_change`, websocket, {n} client(s) ({p['lost']} lost)"
                    f" | {_lat(p)} | (serial floor) {_lat(fl[f'ws_{n}'])} | | |")
    h, fh = m["http"], fl["http"]
    rows.append(f"| `GET /api/sliders`, wrk -t2 -c50 keep-alive (req/s, p99 ms) | "
                f"{h['requests_per_s']:,.0f}, {h['p99_ms']} | {fh['requests_per_s']:,.0f}, "
                f"{fh['p99_ms']} | {h['requests_per_s'] / fh['requests_per_s']:.2f}x | "
                f"{by_start['GET /api/sliders throughput']} (> 100,000 req/s) |")
    for transport in ("websocket", "default"):
        p, f = m["serial"][f"{transport}_{many}"], fl[f"ws_{many}"]
        floor_same = f["server_cpu_s"] * p["events_received"] / max(1, f["events_received"])
        name = next(k for k in verdict if "CPU" in k and transport in k)
        rows.append(f"| CPU in the {many}-client serial phase, {transport} ({p['lines']} lines; "
                    f"user + system) | {p['server_cpu_s']} s ({p['server_cpu_user_s']} + "
                    f"{p['server_cpu_system_s']}) | {floor_same:.2f} s for as many events | "
                    f"{p['server_cpu_s'] / floor_same:.2f}x | {verdict[name]} (< 0.5 CPU-s) |")
    i = r["idle"]
    rows.append(f"| idle RSS / PSS / anonymous, threads | {_mb(i['rss_kib']):.1f} / "
                f"{_mb(i['pss_kib']):.1f} / {_mb(i['rss_anon_kib']):.1f} MB, {i['threads']} | | "
                f"| {verdict['idle RSS']} (< 8 MB) |")
    loaded = max((mem for k, mem in m["memory_with_clients"].items() if k.endswith(f"_{many}")),
                 key=lambda mem: mem["rss_kib"])
    fm = fl[f"ws_{many}"]["server_memory"]
    rows.append(f"| RSS / PSS / anonymous with {many} clients | {_mb(loaded['rss_kib']):.1f} / "
                f"{_mb(loaded['pss_kib']):.1f} / {_mb(loaded['rss_anon_kib']):.1f} MB | "
                f"{_mb(fm['rss_kib']):.1f} / {_mb(fm['pss_kib']):.1f} / "
                f"{_mb(fm['rss_anon_kib']):.1f} MB | | "
                f"{verdict[f'RSS with {many} clients']} (< 12 MB) |")
    s = r["startup"]
    rows.append(f"| start-up, exec to first HTTP 200 (median of {s['runs']}; min, max) | "
                f"{s['median_ms']} ms ({s['min_ms']}, {s['max_ms']}) | | | "
                f"{by_start['start-up']} (< 30 ms) |")
    codec = r.get("codec_ns_per_op") or {}
    if codec:
        rows.append("| device codec, ns per line (`codec_bench`) | " + ", ".join(
            f"{k} {v:.0f}" for k, v in codec.items()) + " | | | |")
    return "\n".join(rows)


if __name__ == "__main__":
    import json
    import sys

    with open(sys.argv[1] if len(sys.argv) > 1 else "build/bench/results.json") as f:
        print(markdown(json.load(f)))
