"""The targets, checked against run.py's result, the table printed on stdout, and the README's
markdown table (`/usr/bin/python3 tools/bench/report.py build/bench/results.json`)."""

MB = 1_000_000  # targets are in MB (10^6 bytes); /proc gives KiB

CHECKS = {"<": lambda v, limit: v < limit, "<=": lambda v, limit: v <= limit,
          ">": lambda v, limit: v > limit, ">=": lambda v, limit: v >= limit,
          "==": lambda v, limit: v == limit}


def _mb(kib):
    return kib * 1024 / MB if kib is not None else None


def _target(key, name, value, op, limit, unit, extra_ok=True):
    ok = value is not None and extra_ok and CHECKS[op](value, limit)
    return {"id": key, "name": name, "value": value, "op": op, "limit": limit, "unit": unit,
            "pass": ok}


def _div(a, b, digits=2):
    return round(a / b, digits) if a is not None and b else None


def lost_by(server):
    """Events lost over every measured phase of one server (serial, and REST for mixerd)."""
    groups = [server.get("serial", {}), server.get("rest", {})]
    if "serial" not in server:  # the floor: ws_1, ws_100
        groups = [{k: v for k, v in server.items() if k.startswith("ws_")}]
    return sum(p["lost"] for group in groups for p in group.values())


def targets(r):
    """[{id, name, value, op, limit, unit, pass}]: mixerd against the Node peer and the floor of
    the same run, and the footprint targets."""
    many = r["config"]["many"]
    m, node = r["mixerd"], r["node"]
    rounds = m["http"]["rounds"]
    out = [
        _target("rest_rps", f"GET /api/sliders req/s, mixerd / Node peer (wrk -t2 -c50, median "
                f"of {rounds} runs each)",
                _div(m["http"]["requests_per_s"], node["http"]["requests_per_s"]), ">=", 1.0,
                "x", m["http"]["non_2xx"] == 0 and not m["http"]["socket_errors"]),
        _target("rest_cpu", "server CPU per GET /api/sliders request, mixerd / Node peer "
                f"(median of {rounds} runs each)",
                _div(m["http"]["server_cpu_us_per_request"],
                     node["http"]["server_cpu_us_per_request"]), "<=", 0.6, "x"),
    ]
    for transport in ("websocket", "default"):
        phase = m["serial"][f"{transport}_{many}"]
        out.append(_target(f"p99_node_{transport}",
                           f"serial->event p99, {many} clients ({transport}), mixerd / Node peer "
                           "(median of the chunk pairs)",
                           phase["p99_to_node"]["median"], "<=", 1.0, "x"))
        out.append(_target(f"p99_floor_{transport}",
                           f"serial->event p99, {many} clients ({transport}), mixerd / floor "
                           "(median of the chunk pairs)",
                           phase["p99_to_floor"]["median"], "<=", 1.1, "x"))
    out.append(_target("lost", "events mixerd lost (every serial and REST phase)", lost_by(m),
                       "==", 0, "events"))
    for transport in ("websocket", "default"):
        phase = m["serial"][f"{transport}_{many}"]
        # The target is for 10 s at 200 lines/s; a --quick run is scaled up to that.
        cpu = round(phase["server_cpu_s"] * 2000 / phase["lines"], 2)
        out.append(_target(f"serial_cpu_{transport}",
                           f"mixerd CPU in the {many}-client serial phase ({transport}, per "
                           "2,000 lines)", cpu, "<", 0.5, "CPU-s"))
    # The full build is held to its anonymous memory (what it allocated itself): its RSS also
    # counts the resident pages of the libraries it links. The minimal build, which links fewer,
    # is held to its RSS.
    out.append(_target("idle_anon", "idle anonymous memory (RssAnon), full build",
                       round(_mb(r["idle"]["rss_anon_kib"]), 2), "<=", 4, "MB"))
    out.append(_target("minimal_rss", "idle RSS, minimal build",
                       round(_mb(r["idle_minimal"]["rss_kib"]), 2), "<=", 10, "MB"))
    loaded = max(_mb(mem["rss_kib"]) for k, mem in m["memory_with_clients"].items()
                 if k.endswith(f"_{many}"))
    out.append(_target("clients_rss", f"RSS with {many} clients", round(loaded, 2), "<", 12,
                       "MB"))
    out.append(_target("startup", "start-up, exec to first HTTP answer (median)",
                       r["startup"]["median_ms"], "<", 30, "ms"))
    out.append(_target("startup_node", "start-up, exec to first HTTP answer, mixerd / Node peer "
                       f"(median of {r['startup']['runs']} each)",
                       _div(r["startup"]["median_ms"], r["startup_node"]["median_ms"]), "<=",
                       0.15, "x"))
    return out


def _f(v, width=8, digits=2):
    if v is None:
        return "-".rjust(width)
    return f"{v:{width}.{digits}f}"


def _x(v, width=7):
    return f"{v:{width - 1}.2f}x" if v is not None else "-".rjust(width)


def _latency_row(label, phase, floor=None, to_node=None):
    lat = phase["latency_ms"]
    fl = floor["latency_ms"] if floor else {}
    lost = phase.get("lost", 0)
    return (f"{label:<42}{_f(lat.get('p50'))}{_f(lat.get('p90'))}{_f(lat.get('p99'))}"
            f"{_f(lat.get('max'))}{lost:>6} {_x(_div(lat.get('p99'), fl.get('p99')))}"
            f" {_x(phase.get('p99_to_floor', {}).get('median'))}"
            f" {_x((to_node or {}).get('median'))}")


def _memory(m):
    return (f"RSS {_mb(m['rss_kib']):5.2f} MB, PSS {_mb(m['pss_kib']):5.2f} MB "
            f"(anon {_mb(m['pss_anon_kib'] or 0):4.2f}), {m['threads']} threads, "
            f"{m['open_fds']} fds")


def _idle_lines(label, idle):
    return [
        f"{label:<19} {_memory(idle)}, CPU {idle['cpu_percent']} %",
        "  threads: " + ", ".join(idle["thread_names"]),
        "  largest resident mappings, MB: " + ", ".join(
            f"{name} {_mb(kib):.2f}" for name, kib in idle["rss_by_mapping_kib"].items()),
    ]


def _startup(s):
    return (f"median {s['median_ms']} ms, min {s['min_ms']}, max {s['max_ms']} over {s['runs']}; "
            f"first start {s['first_start_ms']} ms")


def _cpu_per_event(phase):
    per = 1e6 / max(1, phase["events_received"])
    return (f"{phase['server_cpu_us_per_event']:.1f} ({phase['server_cpu_user_s'] * per:.1f} + "
            f"{phase['server_cpu_system_s'] * per:.1f}) / {phase['client_cpu_us_per_event']:.1f}")


def _wrk_row(label, h, node_h, floor_h):
    return (f"{label:<30}{h['requests_per_s'] or 0:>9.0f}{_f(h.get('p50_ms'))}"
            f"{_f(h.get('p99_ms'))}{_f(h.get('server_cpu_us_per_request'), 9, 1)}"
            f"{_f(h.get('server_cpu_user_us_per_request'), 7, 1)}"
            f"{_f(h.get('server_cpu_system_us_per_request'), 7, 1)}"
            f"  {_x(_div(h['requests_per_s'], node_h['requests_per_s']))}"
            f" {_x(_div(h['requests_per_s'], floor_h['requests_per_s']))}"
            f"  {_x(_div(h['server_cpu_us_per_request'], node_h['server_cpu_us_per_request']))}"
            f" {_x(_div(h['server_cpu_us_per_request'], floor_h['server_cpu_us_per_request']))}")


def table(r):
    many = r["config"]["many"]
    m, node, fl = r["mixerd"], r["node"], r["floor"]
    machine = r["machine"]
    lines = [
        f"mixerd benchmark ({'quick' if r['quick'] else 'full'} run, {machine['cpus']} CPUs, "
        f"load {machine['loadavg_start']} -> {machine['loadavg_end']}, "
        f"{r['config']['rate']} lines/s for {r['config']['seconds']} s per phase, "
        f"clock shared: {fl['clock']['shared']}; Node peer: node {machine['node']}, "
        f"socket.io {machine.get('socket_io')})",
    ]
    if max(machine["loadavg_start"][0], machine["loadavg_end"][0]) > machine["cpus"] / 2:
        lines.append("NOTE: the machine was busy (load average above half its CPUs): latencies "
                     "and throughput are noisy, compare with the floor of the same run")
    lines += [
        "",
        f"{'latency in ms, every (line, client) pair':<42}{'p50':>8}{'p90':>8}{'p99':>8}"
        f"{'max':>8}{'lost':>6} {'p99/fl':>7} {'pr/fl':>7} {'pr/node':>7}",
        _latency_row("floor: pty write -> read", fl["pty"]),
        _latency_row("floor: pty -> bare ws server, 1", fl["ws_1"]),
        _latency_row(f"floor: pty -> bare ws server, {many}", fl[f"ws_{many}"]),
    ]
    for n in (1, many):
        for transport in ("websocket", "default"):
            key = f"{transport}_{n}"
            lines.append(_latency_row(f"Node peer: serial -> event, {transport}, {n}",
                                      node["serial"][key], fl[f"ws_{n}"]))
            lines.append(_latency_row(f"mixerd: serial -> event, {transport}, {n}",
                                      m["serial"][key], fl[f"ws_{n}"],
                                      m["serial"][key]["p99_to_node"]))
        lines.append(_latency_row(f"mixerd: REST POST -> event, websocket, {n}",
                                  m["rest"][f"websocket_{n}"], fl[f"ws_{n}"]))
    lines += [
        "  p99/fl: to the floor row with as many clients (whole phase); pr/fl, pr/node: median "
        "over the chunk pairs of",
        "  (chunk p99 / p99 of the floor's or the Node peer's chunk sent just before it), the "
        "measure of the p99 targets",
        "",
        f"GET /api/sliders, wrk -t2 -c50 keep-alive, median of {m['http']['rounds']} runs of "
        f"{m['http']['seconds_each']} s each, taking turns:",
        f"{'':<30}{'req/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'CPU us/req':>11}{'user':>5}"
        f"{'sys':>7}  {'req/s to node, floor':>15}  {'CPU/req to node, floor':>15}",
        _wrk_row("mixerd", m["http"], node["http"], fl["http"]),
        _wrk_row("Node peer (http + socket.io)", node["http"], node["http"], fl["http"]),
        _wrk_row("floor (bare Beast server)", fl["http"], node["http"], fl["http"]),
        "  req/s of every run: " + "; ".join(
            f"{name} " + ", ".join(f"{run['requests_per_s']:.0f}" for run in out["http"]["runs"])
            for name, out in (("mixerd", m), ("Node peer", node), ("floor", fl))),
        "",
        f"CPU per delivered event in the serial phases, us: server (user + system) / node "
        f"clients; the server's total for its {r['config']['seconds'] * r['config']['rate']} "
        "lines in brackets:",
    ]
    for n in (1, many):
        row = [f"floor {_cpu_per_event(fl[f'ws_{n}'])}"]
        for name, server in (("Node peer", node), ("mixerd", m)):
            for transport in ("websocket", "default"):
                p = server["serial"][f"{transport}_{n}"]
                row.append(f"{name} {transport} {_cpu_per_event(p)} ({p['server_cpu_s']} CPU-s)")
        lines.append(f"  {n:>3} client(s): " + ", ".join(row))
    lines += [""] + _idle_lines("idle:", r["idle"])
    lines += _idle_lines("idle, minimal build:", r["idle_minimal"])
    for transport in ("websocket", "default"):
        mem = m["memory_with_clients"][f"{transport}_{many}"]
        lines.append(f"{many} clients ({transport[:3]}): {_memory(mem)}")
    lines.append(f"after wrk:          {_memory(m['memory_after_wrk'])}")
    for transport in ("websocket", "default"):
        mem = node["memory_with_clients"][f"{transport}_{many}"]
        lines.append(f"Node peer, {many} clients ({transport[:3]}): {_memory(mem)}")
    lines.append(f"Node peer after wrk: {_memory(node['memory_after_wrk'])}")
    lines.append(f"floor server, {many} clients: {_memory(fl[f'ws_{many}']['server_memory'])}")
    s, node_s = r["startup"], r["startup_node"]
    lines += [
        f"start-up (exec -> first 200 answer to GET {s['path']}), taking "
        "turns; a mixerd's first start creates its data folder's files:",
        f"  mixerd:        {_startup(s)}",
        f"  minimal build: {_startup(r['startup_minimal'])}",
        f"  Node peer:     {_startup(node_s)}",
        f"  mixerd / Node peer {_xs(_div(s['median_ms'], node_s['median_ms']))}, minimal build / "
        f"Node peer {_xs(_div(r['startup_minimal']['median_ms'], node_s['median_ms']))}",
    ]
    if r.get("codec_ns_per_op"):
        lines.append("device codec (codec_bench): " + ", ".join(
            f"{name} {ns:.0f} ns" for name, ns in r["codec_ns_per_op"].items()))
    lines += ["", "targets:"]
    for t in r["targets"]:
        lines.append(f"  {'PASS' if t['pass'] else 'MISS'}  {t['name']}: {t['value']} {t['unit']}"
                     f" (target {t['op']} {t['limit']:,} {t['unit']})")
    problems = [f"{name} {k}: {p['lost']} lost, {p['unexpected']} unexpected, "
                f"{len(p['disconnects'])} disconnects"
                for name, groups in (("floor", (fl,)), ("Node peer", (node["serial"],)),
                                     ("mixerd", (m["serial"], m["rest"])))
                for group in groups for k, p in group.items()
                if isinstance(p, dict) and "disconnects" in p
                and (p["lost"] or p["unexpected"] or p["disconnects"])]
    for name, h in (("mixerd", m["http"]), ("Node peer", node["http"]), ("floor", fl["http"])):
        if h["non_2xx"] or h["socket_errors"]:
            problems.append(f"{name} wrk: {h['non_2xx']} non-2xx answers, socket errors "
                            f"{h['socket_errors']}")
    if problems:
        lines += ["", "not delivered or answered as sent:"] + [f"  {p}" for p in problems]
    return "\n".join(lines)


def _xs(v):
    return f"{v:.2f}x" if v is not None else "-"


def _lat(phase):
    lat = phase["latency_ms"]
    return f"{lat['p50']:.2f} / {lat['p90']:.2f} / {lat['p99']:.2f} / {lat['max']:.1f}"


def _lost(phase):
    return f"{_lat(phase)} ({phase['lost']} lost)"


def _verdict(t):
    unit = t["unit"] if t["unit"] == "x" else " " + t["unit"]
    return f"{'PASS' if t['pass'] else 'MISS'} ({t['op']} {t['limit']:,}{unit})"


def markdown(r):
    """The README's table."""
    many = r["config"]["many"]
    m, node, fl = r["mixerd"], r["node"], r["floor"]
    t = {target["id"]: target for target in r["targets"]}
    rows = ["| What | mixerd | Node peer | floor | mixerd / Node peer | mixerd / floor | target |",
            "|---|---|---|---|---|---|---|"]
    rows.append(f"| pty write -> read (ms p50 / p90 / p99 / max) | | | {_lat(fl['pty'])} | | | |")
    for n in (1, many):
        for transport in ("websocket", "default"):
            p, q, f = m["serial"][f"{transport}_{n}"], node["serial"][f"{transport}_{n}"], \
                fl[f"ws_{n}"]
            target = ""
            if n == many:
                target = (f"{_verdict(t[f'p99_node_{transport}'])}, "
                          f"{_verdict(t[f'p99_floor_{transport}'])}")
            rows.append(f"| serial line -> `slider_change`, {transport}, {n} client(s) (ms p50 / "
                        f"p90 / p99 / max) | {_lost(p)} | {_lost(q)} | {_lost(f)} | "
                        f"p99 {_xs(p['p99_to_node']['median'])} | "
                        f"p99 {_xs(p['p99_to_floor']['median'])} "
                        f"| {target} |")
        p = m["rest"][f"websocket_{n}"]
        rows.append(f"| REST POST -> `slider_change`, websocket, {n} client(s) | {_lost(p)} | "
                    "| | | | |")
    h, nh, fh = m["http"], node["http"], fl["http"]
    rows.append(f"| `GET /api/sliders`, wrk -t2 -c50 keep-alive, median of {h['rounds']} x "
                f"{h['seconds_each']} s (req/s, p99 ms) | {h['requests_per_s']:,.0f}, "
                f"{h['p99_ms']:.2f} | {nh['requests_per_s']:,.0f}, {nh['p99_ms']:.2f} | "
                f"{fh['requests_per_s']:,.0f}, {fh['p99_ms']:.2f} | "
                f"{_xs(_div(h['requests_per_s'], nh['requests_per_s']))} | "
                f"{_xs(_div(h['requests_per_s'], fh['requests_per_s']))} | "
                f"{_verdict(t['rest_rps'])} |")

    def cpu(x):
        return (f"{x['server_cpu_us_per_request']:.1f} ({x['server_cpu_user_us_per_request']:.1f}"
                f" + {x['server_cpu_system_us_per_request']:.1f})")

    rows.append(f"| server CPU per `GET /api/sliders` request, us (user + system), median of "
                f"{h['rounds']} | {cpu(h)} | {cpu(nh)} | {cpu(fh)} | "
                f"{_xs(_div(h['server_cpu_us_per_request'], nh['server_cpu_us_per_request']))} | "
                f"{_xs(_div(h['server_cpu_us_per_request'], fh['server_cpu_us_per_request']))} | "
                f"{_verdict(t['rest_cpu'])} |")
    for transport in ("websocket", "default"):
        p, q, f = m["serial"][f"{transport}_{many}"], node["serial"][f"{transport}_{many}"], \
            fl[f"ws_{many}"]
        node_same = q["server_cpu_s"] * p["events_received"] / max(1, q["events_received"])
        floor_same = f["server_cpu_s"] * p["events_received"] / max(1, f["events_received"])
        rows.append(f"| CPU in the {many}-client serial phase, {transport} ({p['lines']} lines; "
                    f"user + system) | {p['server_cpu_s']} s ({p['server_cpu_user_s']} + "
                    f"{p['server_cpu_system_s']}) | {node_same:.2f} s for as many events | "
                    f"{floor_same:.2f} s for as many events | "
                    f"{_xs(_div(p['server_cpu_s'], node_same))} | "
                    f"{_xs(_div(p['server_cpu_s'], floor_same))} | "
                    f"{_verdict(t[f'serial_cpu_{transport}'])} |")
    rows.append(f"| events lost, every phase | {lost_by(m)} | {lost_by(node)} | {lost_by(fl)} | "
                f"| | {_verdict(t['lost'])} |")
    for build, i, target in (("full", r["idle"], "idle_anon"),
                             ("minimal", r["idle_minimal"], "minimal_rss")):
        rows.append(f"| idle RSS / PSS / anonymous, threads, {build} build | "
                    f"{_mb(i['rss_kib']):.1f} / {_mb(i['pss_kib']):.1f} / "
                    f"{_mb(i['rss_anon_kib']):.1f} MB, {i['threads']} | | | | | "
                    f"{_verdict(t[target])} |")

    def loaded(server):
        mem = max((mem for k, mem in server["memory_with_clients"].items()
                   if k.endswith(f"_{many}")), key=lambda mem: mem["rss_kib"])
        return (f"{_mb(mem['rss_kib']):.1f} / {_mb(mem['pss_kib']):.1f} / "
                f"{_mb(mem['rss_anon_kib']):.1f} MB")

    fm = fl[f"ws_{many}"]["server_memory"]
    rows.append(f"| RSS / PSS / anonymous with {many} clients | {loaded(m)} | {loaded(node)} | "
                f"{_mb(fm['rss_kib']):.1f} / {_mb(fm['pss_kib']):.1f} / "
                f"{_mb(fm['rss_anon_kib']):.1f} MB | | | {_verdict(t['clients_rss'])} |")
    def startup(s):
        return f"{s['median_ms']} ms ({s['min_ms']}, {s['max_ms']})"

    s, node_s = r["startup"], r["startup_node"]
    rows.append(f"| start-up, exec to first HTTP 200 (median of {s['runs']}; min, max) | "
                f"{startup(s)} | {startup(node_s)} | | "
                f"{_xs(_div(s['median_ms'], node_s['median_ms']))} | | "
                f"{_verdict(t['startup'])}, {_verdict(t['startup_node'])} |")
    rows.append(f"| start-up, minimal build | {startup(r['startup_minimal'])} | | | "
                f"{_xs(_div(r['startup_minimal']['median_ms'], node_s['median_ms']))} | | |")
    codec = r.get("codec_ns_per_op") or {}
    if codec:
        rows.append("| device codec, ns per line (`codec_bench`) | " + ", ".join(
            f"{k} {v:.0f}" for k, v in codec.items()) + " | | | | | |")
    return "\n".join(rows)


if __name__ == "__main__":
    import json
    import sys

    with open(sys.argv[1] if len(sys.argv) > 1 else "build/bench/results.json") as f:
        print(markdown(json.load(f)))
