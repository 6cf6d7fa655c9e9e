"""The audio benchmark's targets, its table on stdout and the README's markdown table
(`/usr/bin/python3 tools/bench/audio_report.py build/bench/audio.json`)."""

SERVER_NAMES = {"pulseaudio": "PulseAudio", "pipewire": "PipeWire"}


def _name(kind):
    return SERVER_NAMES.get(kind, kind)


def _ratio(a, b):
    return round(a / b, 2) if a is not None and b else None


def flood_ok(f):
    """Nothing lost: every value in the events, in order; GET and the server end on the last
    one and never showed a value out of order."""
    m = f["mixerd"]
    return (f["events_match"] and f["get_final"] == f["final_sent"] and f["get_in_order"]
            and m["final_seen"] and m["final_pactl"] == f["final_sent"] and m["in_order"])


def targets(r):
    out = []
    for kind, s in r["servers"].items():
        sts = s["slider_to_sound"]
        ratio = _ratio(sts["mixerd"]["latency_ms"].get("p99"),
                       sts["floor"]["latency_ms"].get("p99"))
        out.append({"id": f"slider_to_sound_{kind}", "value": ratio, "op": "<=", "limit": 1.5,
                    "unit": "x", "name": f"{_name(kind)}: slider to sound p99, mixerd / floor",
                    "pass": ratio is not None and ratio <= 1.5 and sts["mixerd"]["lost"] == 0})
        new = s["new_stream"]["mixerd"]
        p99 = new["from_new_ms"].get("p99")
        out.append({"id": f"new_stream_{kind}", "value": p99, "op": "<=", "limit": 20,
                    "unit": "ms", "name": f"{_name(kind)}: new stream to level p99, mixerd",
                    "pass": p99 is not None and p99 <= 20 and new["lost"] == 0})
        f = s["flood"]
        lost = f["lines"] - f["events"] if f["events_match"] else f["lines"]
        out.append({"id": f"flood_{kind}", "value": 0 if flood_ok(f) else max(1, lost), "op": "==",
                    "limit": 0, "unit": "lost",
                    "name": f"{_name(kind)}: nothing lost under {f['rate_per_s']} slider lines/s",
                    "pass": flood_ok(f)})
    return out


def _lat(stats):
    if not stats.get("n"):
        return "-"
    return f"{stats['p50']:.2f} / {stats['p99']:.2f} / {stats['max']:.1f}"


def _verdict(t):
    unit = t["unit"] if t["unit"] == "x" else " " + t["unit"]
    return f"{'PASS' if t['pass'] else 'MISS'} ({t['op']} {t['limit']}{unit})"


def _flood_text(f):
    m = f["mixerd"]
    return (f"{f['events']} of {f['lines']} `slider_change` events, every value in order: "
            f"{'yes' if f['events_match'] else 'NO'}; GET /api/sliders ended on "
            f"{f['get_final']} (sent {f['final_sent']}), {f['get_distinct']} values seen in "
            f"{f['get_polls']} polls, in order: {'yes' if f['get_in_order'] else 'NO'}; server "
            f"ended on {m['final_pactl']} %, {m['distinct']} values read by the observer, in "
            f"order: {'yes' if m['in_order'] else 'NO'}")


def _flood_server(f, side):
    s = f[side]
    return (f"{_lat(s['line_to_server_ms'])} ({s['distinct']} values read, last "
            f"{s['final_pactl']} %)")


def table(r):
    m = r["machine"]
    lines = [f"mixerd audio benchmark ({'quick' if r['quick'] else 'full'} run, {m['cpus']} CPUs, "
             f"load {m['loadavg_start']} -> {m.get('loadavg_end')}; {m['pulseaudio']}, "
             f"{m['pipewire']}, {m['wireplumber']}; {r['run_seconds']} s)", ""]
    t = {x["id"]: x for x in r["targets"]}
    head = f"{'ms: p50 / p99 / max':<44}{'mixerd':>22}{'floor':>22}{'lost':>10}"
    for kind, s in r["servers"].items():
        lines += [f"{_name(kind)} ({s['server']}):", head]
        sts = s["slider_to_sound"]
        lines.append(f"{'  slider to sound':<44}{_lat(sts['mixerd']['latency_ms']):>22}"
                     f"{_lat(sts['floor']['latency_ms']):>22}"
                     f"{sts['mixerd']['lost']:>5} /{sts['floor']['lost']:>3}")
        new = s["new_stream"]
        for key, label in (("from_new_ms", "  new stream to level, from its NEW event"),
                           ("from_spawn_ms", "  new stream to level, from the client's exec")):
            lines.append(f"{label:<44}{_lat(new['mixerd'][key]):>22}{_lat(new['floor'][key]):>22}"
                         f"{new['mixerd']['lost']:>5} /{new['floor']['lost']:>3}")
        lines.append(f"  new streams not at the level 50 ms later: mixerd "
                     f"{new['mixerd']['not_held']}, floor {new['floor']['not_held']}; first "
                     f"volumes read (%): {new['mixerd']['first_volume_percent']}")
        f = s["flood"]
        lines.append(f"{'  line -> server, ' + str(f['rate_per_s']) + ' lines/s (values read)':<44}"
                     f"{_lat(f['mixerd']['line_to_server_ms']):>22}"
                     f"{_lat(f['floor']['line_to_server_ms']):>22}")
        lines.append(f"  {f['rate_per_s']} lines/s: " + _flood_text(f) + "; floor: server ended "
                     f"on {f['floor']['final_pactl']} %, {f['floor']['distinct']} values read")
        for key in (f"slider_to_sound_{kind}", f"new_stream_{kind}", f"flood_{kind}"):
            lines.append(f"  {_verdict(t[key])}  {t[key]['name']}: {t[key]['value']}")
        lines.append("")
    return "\n".join(lines)


def markdown(r):
    t = {x["id"]: x for x in r["targets"]}
    rows = ["| What (ms p50 / p99 / max) | server | mixerd | floor | mixerd / floor, p99 | "
            "target |",
            "|---|---|---|---|---|---|"]
    for kind, s in r["servers"].items():
        sts = s["slider_to_sound"]
        mx, fl = sts["mixerd"], sts["floor"]
        rows.append(f"| slider to sound, {mx['samples']} lines each | {_name(kind)} | "
                    f"{_lat(mx['latency_ms'])} ({mx['lost']} lost) | {_lat(fl['latency_ms'])} "
                    f"({fl['lost']} lost) | {t[f'slider_to_sound_{kind}']['value']}x | "
                    f"{_verdict(t[f'slider_to_sound_{kind}'])} |")
    for kind, s in r["servers"].items():
        mx, fl = s["new_stream"]["mixerd"], s["new_stream"]["floor"]
        ratio = _ratio(mx["from_new_ms"].get("p99"), fl["from_new_ms"].get("p99"))
        rows.append(f"| new stream to level (its NEW event -> volume read at the slider's), "
                    f"{mx['streams']} streams each | {_name(kind)} | {_lat(mx['from_new_ms'])} "
                    f"({mx['lost']} lost) | {_lat(fl['from_new_ms'])} ({fl['lost']} lost) | "
                    f"{ratio}x | {_verdict(t[f'new_stream_{kind}'])} |")
    for kind, s in r["servers"].items():
        f = s["flood"]
        ratio = _ratio(f["mixerd"]["line_to_server_ms"].get("p99"),
                       f["floor"]["line_to_server_ms"].get("p99"))
        rows.append(f"| line -> first read of its value on the server, {f['rate_per_s']} lines/s "
                    f"for {f['lines'] // f['rate_per_s']} s, open loop | {_name(kind)} | "
                    f"{_flood_server(f, 'mixerd')} | {_flood_server(f, 'floor')} | {ratio}x | |")
    for kind, s in r["servers"].items():
        f = s["flood"]
        rows.append(f"| nothing lost at {f['rate_per_s']} slider lines/s | {_name(kind)} | "
                    f"{_flood_text(f)} | | | {_verdict(t[f'flood_{kind}'])} |")
    return "\n".join(rows)


if __name__ == "__main__":
    import json
    import sys

    with open(sys.argv[1] if len(sys.argv) > 1 else "build/bench/audio.json") as f:
        print(markdown(json.load(f)))
