#!/usr/bin/env bash
# Tests of the Neovim plugin's client side against tests/nvim/fake_server.py, a stand-in
# for `racelens lsp` (python3, stdlib only): no racelens build needed. Headless Neovim:
# tests/nvim/client.lua (setup() and everything the plugin does), then
# tests/nvim/health.lua (vim.lsp.enable('racelens') on 0.11+, and :checkhealth racelens).
#
#   bash tests/nvim/client.sh            # NVIM=/path/to/nvim for another Neovim
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
nvim=${NVIM:-nvim}
command -v "$nvim" >/dev/null || { echo "tests/nvim: no \`$nvim\` on PATH (apt-get install neovim)" >&2; exit 2; }
python=$(command -v python3) || { echo "tests/nvim: no python3 on PATH" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/racelens-nvim-client.XXXXXX")
isolate_nvim "$work"
export RACELENS_NVIM_RTP="$root/editors/nvim" RACELENS_FAKE_SERVER="$here/fake_server.py"
export RACELENS_PYTHON="$python" RACELENS_CLIENT_DIR="$work"
# No racelens of the machine's cargo bin folder: the plugin's own search must find none.
export CARGO_HOME="$work/cargo"

for script in client.lua health.lua; do
  status=0
  RACELENS_CLIENT_SCRIPT="$here/$script" timeout 60 "$nvim" --headless -u NONE -i NONE \
    -c 'lua dofile(vim.env.RACELENS_CLIENT_SCRIPT)' </dev/null || status=$?
  [ "$status" -eq 0 ] || report_failure "tests/nvim/client ($script)" "$work" "$status" 60 40 400
done
rm -rf "$work"
echo "tests/nvim/client: ok"
