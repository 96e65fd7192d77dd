#!/usr/bin/env bash
# The test command (README): installs what the tests need, then runs all of them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup
cargo test --workspace --locked
