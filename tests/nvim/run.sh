#!/usr/bin/env bash
# End-to-end test of the Neovim plugin (editors/nvim) against the real server, in a real
# headless Neovim: the object-pool fixture as a git repository (base committed, change
# applied), then tests/nvim/e2e.lua (diagnostic, hover, code lens, lens run,
# racelens:/codes/RL001).
#
#   RACELENS_BIN=/path/to/racelens bash tests/nvim/run.sh
#
# RACELENS_BIN defaults to target/debug/racelens (build it first: cargo build -p racelens).
# NVIM defaults to `nvim` on PATH. Exit status 0 on success; on failure the LSP log's last
# lines are printed and the temporary folder is kept.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
bin=${RACELENS_BIN:-$root/target/debug/racelens}
nvim=${NVIM:-nvim}

die() {
  echo "tests/nvim: $*" >&2
  exit 2
}

command -v "$nvim" >/dev/null || die "no \`$nvim\` on PATH (apt-get install neovim)"
command -v git >/dev/null || die "no git on PATH"
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
[ -x "$bin" ] || die "no racelens binary at $bin (cargo build -p racelens, or set RACELENS_BIN)"

work=$(mktemp -d "${TMPDIR:-/tmp}/racelens-nvim.XXXXXX")
project="$work/object-pool"
mkdir -p "$project"
cp -r "$root/tests/fixtures/object-pool/base/." "$project"
git -C "$project" -c init.defaultBranch=main init -q
git -C "$project" add -A
git -C "$project" -c user.name=t -c user.email=t@t -c commit.gpgsign=false commit -qm base
git -C "$project" apply "$root/tests/fixtures/object-pool/change.patch"

# Keep Neovim away from the user's files, and its LSP log in the temporary folder.
isolate_nvim "$work"
export RACELENS_BIN="$bin" RACELENS_E2E_PROJECT="$project" RACELENS_NVIM_RTP="$root/editors/nvim"
export RACELENS_E2E_SCRIPT="$here/e2e.lua"

status=0
timeout 120 "$nvim" --headless -u NONE -i NONE \
  -c 'lua dofile(vim.env.RACELENS_E2E_SCRIPT)' </dev/null || status=$?

if [ "$status" -eq 0 ]; then
  [ -n "${RACELENS_E2E_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
  echo "tests/nvim: ok"
  exit 0
fi
report_failure tests/nvim "$work" "$status" 120 60 600 " for inspection"
