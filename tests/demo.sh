#!/usr/bin/env bash
# The demo (README): a job queue whose working-tree change brings three concurrency
# regressions. Builds racelens, makes the demo a real git repository in a temporary
# folder (the base committed, the change on top), runs `racelens check` on it, then
# explores the schedules of its multithreaded test on a real JVM (`racelens explore`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
bash .ci/setup --demo
cargo build --release --locked -q -p racelens
repo=$(mktemp -d "${TMPDIR:-/tmp}/racelens-demo.XXXXXX")
cp -r "$here/demo/base/." "$repo"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=demo -c user.email=demo@racelens.invalid commit -q -m "job queue"
git -C "$repo" apply "$here/demo/change.patch"
echo "== the change (git diff in $repo)"
git -C "$repo" --no-pager diff --stat
echo "== racelens check"
"$PWD/target/release/racelens" check "$repo" "$@"
echo
echo "== racelens explore --test JobQueueTest (exit status 1: a failing schedule was found)"
status=0
"$PWD/target/release/racelens" explore "$repo" --test JobQueueTest || status=$?
[ "$status" -le 1 ] || exit "$status"
