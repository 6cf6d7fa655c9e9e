#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz (clang, ASan + UBSan; built by `tools/build.sh fuzz`).
#
#   tools/fuzz.sh replay                      run every target once over its committed corpus
#                                             (tests/fuzz/corpus/<target>); exits 1 on any crash
#   tools/fuzz.sh run [SECONDS] [--merge] [target...]
#                                             fuzz each target (default: all) for SECONDS
#                                             (default 600), one after the other, with its
#                                             dictionary; new inputs go to a scratch corpus in
#                                             build/fuzz-work/<target>/corpus, crashes to
#                                             build/fuzz-work/<target>/; --merge then rebuilds
#                                             tests/fuzz/corpus/<target>: its seed-* and found-*
#                                             files plus at most 40 inputs that add most coverage
#   tools/fuzz.sh merge [target...]           the --merge step alone, from the scratch corpora
#   tools/fuzz.sh list                        the target names
#
# Each run ends with one line per target: executions, coverage (edges) before -> after, corpus
# size, and findings (crash/leak/timeout/oom files written). A finding makes the exit status 1.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/fuzz/tests/fuzz"
corpora="$root/tests/fuzz/corpus"
work="$root/build/fuzz-work"

usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

all_targets() {
  for f in "$root"/tests/fuzz/*.cpp; do basename "$f" .cpp; done
}

# Findings abort at once; leaks are checked after each input; a quarantine of 64 MB keeps RSS
# moderate on a small shared machine.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:quarantine_size_mb=64:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Inputs longer than this are not generated (each target reads real-world sizes: a device line
# is at most 255 bytes, HTTP headers are bounded at 16 KiB).
max_len() {
  case "$1" in
    http_request) echo 20000 ;;
    websocket_frames | settings_json | plants_json | tailscale_status | macro_json | stream_json | plugin_line) echo 8192 ;;
    profile_json | smarthome_json) echo 16384 ;;
    *) echo 4096 ;;
  esac
}

build() {
  "$root/tools/build.sh" fuzz >/dev/null || {
    echo "fuzz: build failed (tools/build.sh fuzz)" >&2
    exit 1
  }
}

check_target() {
  [[ -x "$bin/fuzz_$1" ]] || {
    echo "fuzz: unknown target '$1' (tools/fuzz.sh list)" >&2
    exit 2
  }
}

replay() {
  build
  local status=0 t log files
  for t in $(all_targets); do
    check_target "$t"
    log=$(mktemp)
    files=$(find "$corpora/$t" -type f | wc -l)
    # -runs=0: execute every corpus input once, no mutations.
    if "$bin/fuzz_$t" -runs=0 -timeout=25 -rss_limit_mb=2048 "$corpora/$t" >"$log" 2>&1; then
      printf 'fuzz replay: %-18s ok   %4d inputs  %s\n' "$t" "$files" \
        "$(grep -o 'cov: [0-9]*' "$log" | tail -1)"
    else
      printf 'fuzz replay: %-18s FAILED (%d inputs)\n' "$t" "$files"
      grep -E 'ERROR|invariant failed|detail:|SUMMARY|Test unit written|^    #[0-9]' "$log" | head -40
      status=1
    fi
    rm -f "$log"
  done
  ((status == 0)) && echo "fuzz replay: all corpora pass" || echo "fuzz replay: FAILED" >&2
  return $status
}

# Rebuilds tests/fuzz/corpus/<target> small: the named inputs (seed-* from seeds.py, found-* that
# reproduce a fixed finding) stay, and tests/fuzz/minimize_corpus.py adds, greedily, the inputs
# of the committed and the scratch corpus that reach the most edges not reached yet (at most 40,
# each adding at least 2 edges). Prints what the result keeps.
merge_corpus() {
  local t=$1 dir="$work/$1"
  rm -rf "$dir/merged" "$dir/merge-out" "$dir/merge.control" && mkdir -p "$dir/merge-out"
  # A set-cover merge runs every input once and records all the edges each reaches.
  if ! "$bin/fuzz_$t" -set_cover_merge=1 -use_counters=0 -merge_control_file="$dir/merge.control" \
    "$dir/merge-out" \
    "$corpora/$t" "$dir/corpus" >"$dir/last-merge.log" 2>&1; then
    echo "fuzz: merge of $t failed (see ${dir#"$root"/}/last-merge.log)" >&2
    return 1
  fi
  local kept
  kept=$(/usr/bin/python3 "$root/tests/fuzz/minimize_corpus.py" "$dir/merge.control" "$dir/merged") ||
    return 1
  find "$corpora/$t" -maxdepth 1 -type f -delete
  cp "$dir/merged"/* "$corpora/$t/"
  rm -rf "$dir/merge-out" "$dir/merge.control"
  echo "$kept"
}

run() {
  local seconds=600 merge=0 targets=()
  while (($#)); do
    case "$1" in
      --merge) merge=1 ;;
      [0-9]*) seconds=$1 ;;
      -h | --help) usage ;;
      *) targets+=("$1") ;;
    esac
    shift
  done
  ((${#targets[@]})) || mapfile -t targets < <(all_targets)
  build
  local t dir log summary=() status=0
  for t in "${targets[@]}"; do
    check_target "$t"
    dir="$work/$t"
    mkdir -p "$dir/corpus"
    log="$dir/last-run.log"
    local before
    before=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    echo "== fuzz $t for ${seconds} s (log: ${log#"$root"/})"
    # The scratch corpus comes first: libFuzzer writes new inputs to the first directory.
    "$bin/fuzz_$t" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
      -dict="$root/tests/fuzz/$t.dict" -artifact_prefix="$dir/" -timeout=25 \
      -rss_limit_mb=2048 -print_final_stats=1 -print_funcs=0 -print_pcs=0 \
      "$dir/corpus" "$corpora/$t" >"$log" 2>&1
    local rc=$?
    local execs cov0 cov1 corp after findings
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov0=$(grep -m1 'INITED' "$log" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
    cov1=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
    corp=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -o 'corp: [0-9]*/[0-9a-zA-Z]*')
    after=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    findings=$((after - before))
    if ((rc != 0 && findings == 0)); then findings=1; fi
    if ((findings > 0)); then
      status=1
      grep -E 'ERROR|invariant failed|detail:|SUMMARY|Test unit written' "$log" | head -20
    fi
    local merged=""
    if ((merge)); then
      merged="  corpus: $(merge_corpus "$t")"
    fi
    summary+=("$(printf '%-18s %12s execs  cov %5s -> %-5s  %-16s findings: %d%s' "$t" \
      "${execs:-?}" "${cov0:-?}" "${cov1:-?}" "${corp:-?}" "$findings" "$merged")")
  done
  echo "== fuzz summary (${seconds} s per target)"
  printf '%s\n' "${summary[@]}"
  return $status
}

merge() {
  local targets=("$@") t
  ((${#targets[@]})) || mapfile -t targets < <(all_targets)
  build
  for t in "${targets[@]}"; do
    check_target "$t"
    [[ -d "$work/$t/corpus" ]] || {
      echo "fuzz merge: $t has no scratch corpus (tools/fuzz.sh run first)" >&2
      continue
    }
    printf 'fuzz merge: %-18s %s\n' "$t" "$(merge_corpus "$t")"
  done
}

cmd=${1:-}
shift || true
case "$cmd" in
  replay) replay ;;
  run) run "$@" ;;
  merge) merge "$@" ;;
  list) all_targets ;;
  *) usage ;;
esac
