#!/usr/bin/env bash
# Builds racelens-agent.jar by hand: the reference for the crate's build.rs, which runs the same
# steps. Usage: server/agent/build.sh <out dir or out .jar>   (default: ./racelens-agent.jar)
# The jar must be named racelens-agent.jar where it is used: its manifest's Boot-Class-Path names it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-racelens-agent.jar}
if [ -d "$out" ]; then out="$out/racelens-agent.jar"; fi
asm_dir=${ASM_DIR:-/usr/share/java}
asm="$asm_dir/asm.jar"; commons="$asm_dir/asm-commons.jar"; tree="$asm_dir/asm-tree.jar"
for j in "$asm" "$commons" "$tree"; do
  [ -f "$j" ] || { echo "missing $j (Debian package libasm-java)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find "$here/src" -name '*.java' | LC_ALL=C sort > "$tmp/sources"
javac --release 17 -g -nowarn -encoding UTF-8 -cp "$asm:$tree:$commons" -d "$tmp/classes" @"$tmp/sources"
javac --release 17 -nowarn -encoding UTF-8 -cp "$asm:$commons" -d "$tmp/shade" "$here/build/racelens/build/Shade.java"
java -cp "$asm:$commons:$tmp/shade" racelens.build.Shade "$out" "$tmp/classes" "$asm" "$commons" "$tree"
echo "$out"
