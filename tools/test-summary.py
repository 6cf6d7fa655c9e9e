"""Adds up the JUnit reports (and the fuzz replay lines) of one tools/run-tests.sh run into one
closing line."""
import pathlib
import sys
import xml.etree.ElementTree as ET

results = pathlib.Path(sys.argv[1])
passed = failed = skipped = 0
failures = []  # named in the last lines, which are what a CI log shows when it is cut
for report in sorted(results.glob("*.xml")):
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    for suite in suites:
        for case in suite.iter("testcase"):
            problem = case.find("failure")
            problem = problem if problem is not None else case.find("error")
            if problem is not None:
                failed += 1
                where = case.get("classname") or ""
                why = (problem.get("message") or "").splitlines()[:1]
                failures.append(f"{report.stem}: {where}{'::' if where else ''}{case.get('name')}"
                                + (f" ({why[0][:200]})" if why else ""))
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
# tools/fuzz.sh replay: one line per target.
replay = results / "fuzz-replay.txt"
if replay.exists():
    for line in replay.read_text(errors="replace").splitlines():
        if line.startswith("fuzz replay: ") and len(line.split()) > 3:
            verdict = line.split()[3]
            passed += verdict == "ok"
            failed += verdict == "FAILED"
            if verdict == "FAILED":
                failures.append(f"fuzz replay: {line.split()[2]}")
broken_builds = sorted(results.glob("*-build-failed"))
build_failures = len(broken_builds)
failed += build_failures
failures += [f"build failed: {p.name.removesuffix('-build-failed')}" for p in broken_builds]
for failure in failures:
    print(f"failed: {failure}")
note = f" ({build_failures} build(s) failed)" if build_failures else ""
print(f"summary: {passed} passed, {failed} failed, {skipped} skipped{note}")
sys.exit(1 if failed or passed == 0 else 0)
