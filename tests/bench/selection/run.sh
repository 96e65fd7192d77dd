#!/usr/bin/env bash
# Precision and recall of `racelens select`, from coverage vs from static reachability, on
# one project made of the fourteen CAPP bench fixtures (tests/bench/capp: independent
# packages, one multithreaded JUnit test each). The coverage history is recorded once on the
# combined base (`racelens record --all`); then, for each fault, its change alone is applied
# and both selections are read. The truth for a change is the fixture's own test (it fails
# under exploration with the change and passes every schedule without it: capp/README.md).
#
#   RACELENS=target/debug/racelens tests/bench/selection/run.sh
#
# Runs the 14 tests once each under the agent (a JDK and JUnit 4 are needed); the static
# selection uses a cache without history, the coverage one the recorded cache.
set -euo pipefail
racelens=$(realpath "${RACELENS:-$(command -v racelens)}")
bench=$(cd "$(dirname "$0")/../capp" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/subsystems"
mkdir -p "$repo"
for f in "$bench"/*/; do cp -r "$f/base/." "$repo/"; done
cd "$repo"
git init -q && git add -A && git -c user.name=bench -c user.email=bench@racelens.invalid -c commit.gpgsign=false commit -qm base
XDG_CACHE_HOME="$work/cache-coverage" "$racelens" record --all | tail -1
for f in "$bench"/*/; do
  truth=$(sed -n 's/^test = "\(.*\)"/\1/p' "$f/fault.toml")
  git checkout -q -- . && git apply "$f/change.patch"
  for mode in static coverage; do
    XDG_CACHE_HOME="$work/cache-$mode" "$racelens" select --json > "$work/$mode.json"
    python3 - "$mode" "$(basename "$f")" "$truth" "$work/$mode.json" >> "$work/rows" <<'PY'
import json, sys
mode, fault, truth, path = sys.argv[1:]
v = json.load(open(path))
selected = [t["test"] for t in v["tests"] if t["selected"]]
print(mode, fault, len(selected), int(truth in selected))
PY
  done
done
git checkout -q -- .
python3 - "$work/rows" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"{'fault':24} {'static':>12} {'coverage':>12}   (selected, truth selected)")
faults = sorted({r[1] for r in rows})
by = {(r[0], r[1]): (int(r[2]), int(r[3])) for r in rows}
for f in faults:
    s, c = by[("static", f)], by[("coverage", f)]
    print(f"{f:24} {str(s):>12} {str(c):>12}")
for mode in ("static", "coverage"):
    sel = sum(by[(mode, f)][0] for f in faults)
    hit = sum(by[(mode, f)][1] for f in faults)
    precision = hit / sel if sel else float("nan")
    print(f"{mode}: precision {hit}/{sel} = {precision:.2f}, recall {hit}/{len(faults)} = {hit / len(faults):.2f}")
PY
