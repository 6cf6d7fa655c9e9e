"""The schema of settings.json (GET /api/settings/schema) and the daemon's own checks cannot drift
apart: for every typed value the schema describes, a wrong type or a value out of its range is
refused by both (the daemon exits 2, as `mixerd api-key` does for a broken file), and every
top-level default is taken by both. Every settings file the other tests start mixerd with is
checked against the schema by the harness (conftest.Daemon.start)."""
import json
import os
import subprocess

import jsonschema
import pytest

from conftest import MIXERD_BIN, settings_schema


def leaves(schema, path=()):
    """(path, schema) of every typed value: the top-level keys and the members of objects that
    describe their properties, at any depth; an array of such objects by its first element."""
    for name, part in schema.get("properties", {}).items():
        yield from typed(part, path + (name,))


def typed(part, here):
    if part.get("type") == "object" and "properties" in part:
        yield from leaves(part, here)
    elif part.get("type") == "array" and isinstance(part.get("items"), dict):
        yield from typed(part["items"], here + (0,))
    elif part.get("type") in ("boolean", "integer", "string"):
        yield here, part


def wrong_values(part):
    kind = part["type"]
    if kind == "boolean":
        return ["yes", 1]
    if kind == "integer":
        out = ["7", 1.5]
        if "maximum" in part:
            out.append(part["maximum"] + 1)
        if "minimum" in part:
            out.append(part["minimum"] - 1)
        return out
    if "enum" in part:
        return ["no-such-choice", 5]
    return [5, True]


def nested(path, value):
    out = value
    for step in reversed(path):
        out = [out] if isinstance(step, int) else {step: out}
    return out


def daemon_takes(tmp_path, settings):
    """Whether mixerd takes `settings` as a settings file (api-key reads and checks the file as
    the daemon does: exit 2 when it is broken)."""
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))
    r = subprocess.run([MIXERD_BIN, "api-key", "--data-dir", str(folder)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode in (0, 2), r.stderr
    return r.returncode == 0, r.stderr.strip()


@pytest.fixture(scope="module")
def schema():
    return settings_schema()


def test_every_wrong_type_or_range_is_refused_by_the_daemon_and_the_schema(schema, tmp_path):
    validator = jsonschema.Draft202012Validator(schema)
    drift = []
    cases = 0
    for path, part in leaves(schema):
        for value in wrong_values(part):
            cases += 1
            settings = nested(path, value)
            taken, why = daemon_takes(tmp_path, settings)
            schema_ok = validator.is_valid(settings)
            if taken or schema_ok:
                drift.append(f"{'.'.join(map(str, path))}={value!r}: daemon "
                             f"{'takes' if taken else 'refuses'}, schema "
                             f"{'takes' if schema_ok else 'refuses'}")
    assert cases > 90, "the walk found fewer typed values than the schema describes"
    assert drift == []


def test_every_top_level_default_is_taken_by_the_daemon_and_the_schema(schema, tmp_path):
    validator = jsonschema.Draft202012Validator(schema)
    refused = []
    for name, part in schema["properties"].items():
        if "default" not in part:
            continue
        settings = {name: part["default"]}
        taken, why = daemon_takes(tmp_path, settings)
        if not taken or not validator.is_valid(settings):
            refused.append(f"{name}={part['default']!r}: {why}")
    assert refused == []


def test_the_example_file_is_valid(schema):
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "conf",
                           "settings.example.json")) as f:
        example = json.load(f)
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(example)) == []
