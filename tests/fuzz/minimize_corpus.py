#!/usr/bin/python3
"""Picks a small committed corpus from a libFuzzer merge control file (tools/fuzz.sh merge).

usage: minimize_corpus.py CONTROL_FILE OUT_DIR [--max-added N] [--min-gain K]

The control file of `-set_cover_merge=1 -use_counters=0` lists every candidate input and all
the coverage features it reaches (FT lines; without hit counts a feature is an edge). The COV
lines hold only what an input reaches first, so they are not used.
Named inputs (seed-*, found-*) are always kept. Then, greedily, the input that reaches the most
features not reached yet is added (the smaller one on a tie), until no input adds at least K edges
or N inputs were added. The chosen inputs are copied to OUT_DIR under their SHA-1 names, and one
line says how many features the result keeps of all the candidates reach.
"""
import argparse
import hashlib
import os
import shutil


def read_control(path):
    with open(path) as f:
        lines = f.read().splitlines()
    count = int(lines[0])
    files = lines[2:2 + count]
    cov = {}
    for line in lines[2 + count:]:
        if line.startswith("FT "):
            parts = line.split()
            cov[int(parts[1])] = set(int(p) for p in parts[2:])
    return files, cov


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("control")
    parser.add_argument("out")
    parser.add_argument("--max-added", type=int, default=40)
    parser.add_argument("--min-gain", type=int, default=2)
    args = parser.parse_args()

    files, cov = read_control(args.control)
    named = [i for i, f in enumerate(files)
             if os.path.basename(f).startswith(("seed-", "found-"))]
    covered = set()
    chosen = []
    seen_names = set()
    for i in named:
        name = os.path.basename(files[i])
        if name in seen_names:
            continue
        seen_names.add(name)
        chosen.append(i)
        covered |= cov.get(i, set())
    everything = set().union(*cov.values()) if cov else set()
    candidates = [i for i in cov if i not in named]
    added = 0
    while added < args.max_added:
        best, best_gain = None, 0
        for i in candidates:
            gain = len(cov[i] - covered)
            if gain > best_gain or (gain == best_gain and best is not None and gain > 0 and
                                    os.path.getsize(files[i]) < os.path.getsize(files[best])):
                best, best_gain = i, gain
        if best is None or best_gain < args.min_gain:
            break
        chosen.append(best)
        covered |= cov[best]
        candidates.remove(best)
        added += 1

    os.makedirs(args.out, exist_ok=True)
    for i in chosen:
        with open(files[i], "rb") as f:
            data = f.read()
        name = os.path.basename(files[i])
        if not name.startswith(("seed-", "found-")):
            name = hashlib.sha1(data).hexdigest()
        shutil.copyfile(files[i], os.path.join(args.out, name))
    print(f"{len(chosen)} files ({len(seen_names)} named, {added} added) reach "
          f"{len(covered)} of {len(everything)} edges")


if __name__ == "__main__":
    main()
