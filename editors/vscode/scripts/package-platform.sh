#!/usr/bin/env bash
# Packages the extension for one platform with the racelens binary inside (server/racelens),
# so that `code --install-extension racelens-linux-x64.vsix` is the whole install:
#
#   bash scripts/package-platform.sh                      # cargo build --release, this platform
#   bash scripts/package-platform.sh --binary PATH        # package a binary built already
#   bash scripts/package-platform.sh --target linux-arm64 --binary PATH --out FILE
#
# Run from anywhere; prints the path of the .vsix. The binary must be built for the target
# (`--binary` is not checked against it). Needs `npm ci` in editors/vscode first.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)

die() {
  echo "package-platform: $*" >&2
  exit 2
}

# This machine's VS Code target name.
host_target() {
  local os arch
  case $(uname -s) in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) die "no VS Code target for $(uname -s); pass --target" ;;
  esac
  case $(uname -m) in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    armv7l) arch=armhf ;;
    *) die "no VS Code target for $(uname -m); pass --target" ;;
  esac
  echo "$os-$arch"
}

binary= target= out=
while (($#)); do
  case $1 in
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --target) target=${2:?--target needs a name}; shift 2 ;;
    --out) out=${2:?--out needs a path}; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done
target=${target:-$(host_target)}
case $target in
  win32-*) name=racelens.exe ;;
  *) name=racelens ;;
esac
out=$(realpath -m "${out:-$here/racelens-$target.vsix}")

if [ -z "$binary" ]; then
  echo "package-platform: cargo build --release -p racelens" >&2
  (cd "$repo" && cargo build --release --locked -q -p racelens)
  binary=${CARGO_TARGET_DIR:-$repo/target}/release/racelens
fi
[ -f "$binary" ] && [ -x "$binary" ] || die "not an executable file: $binary"

cd "$here"
[ -x node_modules/.bin/vsce ] || die "no vsce: run npm ci in $here first"
npm run -s build
# server/ holds the binary only while vsce packages it (.vscodeignore lets it in).
[ ! -e server ] || die "$here/server exists already; remove it first"
trap 'rm -rf "$here/server"' EXIT
mkdir server
cp "$binary" "server/$name"
chmod 755 "server/$name"
node_modules/.bin/vsce package --no-dependencies --allow-missing-repository --target "$target" --out "$out" >&2
echo "$out"
