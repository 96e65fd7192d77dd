#!/usr/bin/env bash
# Noise of a warning on real history: for each of the last N commits of a git repository
# that touch Java (merges left out), the commit's Java diff is applied to its parent's tree
# and `racelens check` runs on it; prints the commits that get the warning CODE, then how
# many of those checked did. Upstream commits are mostly not concurrency regressions, so
# every hit is a warning to look at. It checks out commits in REPO: use a scratch clone.
#
#   bash tests/bench/upstream-noise.sh RL010 /tmp/commons-lang 150 [path/to/racelens]
set -euo pipefail
code=$1 repo=$2 n=$3
bin=${4:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/racelens}
cd "$repo"
git checkout -q -f . && git clean -qfd
checked=0 hits=0
for c in $(git log --format=%h -n "$n" --no-merges -- '*.java'); do
  git checkout -q -f "$c^" 2>/dev/null || continue
  if git diff "$c^" "$c" -- '*.java' | git apply 2>/dev/null; then
    out=$(timeout 120 "$bin" check . 2>&1 || true)
    k=$(grep -c "warning\[$code\]" <<<"$out" || true)
    checked=$((checked + 1))
    if [ "$k" -gt 0 ]; then
      hits=$((hits + 1))
      echo "$c: $k $code"
      # -m, not `| head`: under pipefail, head closing the pipe early would end the script.
      grep -m3 "warning\[$code\]" <<<"$out" || true
    fi
  fi
  git checkout -q -f . && git clean -qfd
done
echo "commits checked: $checked, with $code: $hits"
