#!/usr/bin/env bash
# Tests of the Neovim plugin's client side against tests/nvim/fake_server.py, a stand-in
# for `racelens lsp` (python3, stdlib only): no racelens build needed. Headless Neovim.
#
#   bash tests/nvim/client.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvim=${NVIM:-nvim}
command -v "$nvim" >/dev/null || { echo "tests/nvim: no \`$nvim\` on PATH (apt-get install neovim)" >&2; exit 2; }
python=$(command -v python3) || { echo "tests/nvim: no python3 on PATH" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/racelens-nvim-client.XXXXXX")
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
export XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state"
export RACELENS_NVIM_RTP="$root/editors/nvim" RACELENS_FAKE_SERVER="$here/fake_server.py"
export RACELENS_PYTHON="$python" RACELENS_CLIENT_DIR="$work" RACELENS_CLIENT_SCRIPT="$here/client.lua"

status=0
timeout 60 "$nvim" --headless -u NONE -i NONE -c 'lua dofile(vim.env.RACELENS_CLIENT_SCRIPT)' </dev/null || status=$?
if [ "$status" -eq 0 ]; then
  rm -rf "$work"
  echo "tests/nvim/client: ok"
  exit 0
fi
[ "$status" -eq 124 ] && echo "tests/nvim/client: FAILED: timed out after 60 s" >&2 \
  || echo "tests/nvim/client: FAILED (nvim exit status $status)" >&2
log=$(find "$work" -name lsp.log 2>/dev/null | head -n 1)
if [ -n "$log" ]; then
  echo "---- last 40 lines of the LSP log ($log) ----" >&2
  tail -n 40 "$log" | cut -c1-400 >&2
fi
echo "tests/nvim/client: kept $work" >&2
exit 1
