#!/usr/bin/env bash
# End-to-end tests of the Neovim plugin (editors/nvim) against the real server, in a real
# headless Neovim, each on a fixture made a git repository (base committed, change
# applied): tests/nvim/e2e.lua on object-pool (diagnostic, hover, code lens, lens run,
# racelens:/codes/RL001), then tests/nvim/explore.lua on explore-lost-update (an
# exploration from its lens to the failing schedule's document and replay), then
# tests/nvim/undecided.lua on undecided-hash (the status says "no evidence"); on Neovim
# 0.11+ also tests/nvim/enable.lua on object-pool (no setup(): vim.lsp.enable('racelens')
# with editors/nvim/lsp/racelens.lua); and tests/nvim/binary.lua (which racelens the plugin
# runs without a configured `cmd`: none on PATH nor in $CARGO_HOME/bin, then one there),
# with setup() and on 0.11+ with vim.lsp.enable.
#
#   RACELENS_BIN=/path/to/racelens bash tests/nvim/run.sh
#
# RACELENS_BIN defaults to target/debug/racelens (build it first: cargo build -p racelens).
# NVIM defaults to `nvim` on PATH (`NVIM=$(bash .ci/nvim-current)` for a current one). Exit status 0 on success; on failure the LSP log's last
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

# make_project FIXTURE: prints the path of a new git repository of the fixture.
make_project() {
  local project="$work/$1"
  mkdir -p "$project"
  cp -r "$root/tests/fixtures/$1/base/." "$project"
  git -C "$project" -c init.defaultBranch=main init -q
  git -C "$project" add -A
  git -C "$project" -c user.name=t -c user.email=t@t -c commit.gpgsign=false commit -qm base
  git -C "$project" apply "$root/tests/fixtures/$1/change.patch"
  echo "$project"
}

# (Assigned apart from `export`, whose status would hide a failing make_project.)
RACELENS_E2E_PROJECT=$(make_project object-pool)
RACELENS_E2E_EXPLORE_PROJECT=$(make_project explore-lost-update)
RACELENS_E2E_UNDECIDED_PROJECT=$(make_project undecided-hash)
export RACELENS_BIN="$bin" RACELENS_NVIM_RTP="$root/editors/nvim" RACELENS_E2E_PROJECT RACELENS_E2E_EXPLORE_PROJECT RACELENS_E2E_UNDECIDED_PROJECT

# run_script SCRIPT SECONDS: runs a test script in headless Neovim, with its own Neovim
# directories (and LSP log) under $work; on failure reports and exits.
run_script() {
  local name=${1%.lua} status=0
  # Keep Neovim away from the user's files, and its LSP log in the temporary folder.
  isolate_nvim "$work/$name"
  RACELENS_E2E_SCRIPT="$here/$1" timeout "$2" "$nvim" --headless -u NONE -i NONE \
    -c 'lua dofile(vim.env.RACELENS_E2E_SCRIPT)' </dev/null || status=$?
  if [ "$status" -ne 0 ]; then
    report_failure "tests/nvim ($1)" "$work/$name" "$status" "$2" 60 600 " for inspection"
  fi
}

run_script e2e.lua 120
run_script explore.lua 240
run_script undecided.lua 120
RACELENS_E2E_WAY=setup run_script binary.lua 120
if "$nvim" --headless -u NONE -i NONE -c 'if has("nvim-0.11") | qall! | else | cquit 1 | endif' </dev/null >/dev/null 2>&1; then
  run_script enable.lua 120
  RACELENS_E2E_WAY=enable run_script binary.lua 120
else
  echo "tests/nvim: enable.lua skipped: vim.lsp.enable needs Neovim 0.11+, $("$nvim" --version | head -n 1)"
fi
[ -n "${RACELENS_E2E_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
echo "tests/nvim: ok"
