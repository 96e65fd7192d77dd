#!/usr/bin/env bash
# The test command (README): installs what the tests need, then runs all of them:
# the Rust tests (analysis, CLI, language server in process and over stdio), the VS Code
# extension's type-check, lint, packaging and smoke test, the extension in a real VS Code
# (code-server from .ci/code-server, or CODE_SERVER, in Debian's headless Chromium, with the
# platform package of the debug build), the stdio end-to-end test through the protocol
# library VS Code uses, and the headless Neovim tests on Debian's Neovim 0.7.2 and on a
# current one (NVIM_CURRENT, default: the one .ci/nvim-current installs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup
cargo test --workspace --locked
cargo build --locked -q -p racelens
export RACELENS_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/racelens"
(cd editors/vscode && npm run -s check && npm run -s smoke)
code_server=${CODE_SERVER:-$(bash .ci/code-server)}
(cd editors/vscode && CODE_SERVER="$code_server" npm run -s e2e)
(cd tests/lsp && npm test)
nvim_current=${NVIM_CURRENT:-$(bash .ci/nvim-current)}
bash tests/nvim/run.sh
bash tests/nvim/client.sh
NVIM="$nvim_current" bash tests/nvim/run.sh
NVIM="$nvim_current" bash tests/nvim/client.sh
