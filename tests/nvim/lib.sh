# Shared by tests/nvim/run.sh and tests/nvim/client.sh (sourced, not run).

# isolate_nvim WORK: keeps Neovim away from the user's files, and its LSP log under WORK.
isolate_nvim() {
  export XDG_CONFIG_HOME="$1/config" XDG_DATA_HOME="$1/data"
  export XDG_CACHE_HOME="$1/cache" XDG_STATE_HOME="$1/state"
}

# report_failure LABEL WORK STATUS SECONDS LOG_LINES LOG_WIDTH [KEPT_NOTE]
# After nvim failed under `timeout SECONDS` with exit status STATUS: says why, prints the
# last LOG_LINES lines (cut to LOG_WIDTH characters) of the LSP log found under WORK, says
# that WORK is kept (followed by KEPT_NOTE) and exits with status 1.
report_failure() {
  local label=$1 work=$2 status=$3 seconds=$4 lines=$5 width=$6 note=${7:-}
  local log
  if [ "$status" -eq 124 ]; then
    echo "$label: FAILED: timed out after $seconds s" >&2
  else
    echo "$label: FAILED (nvim exit status $status)" >&2
  fi
  log=$(find "$work" -name lsp.log 2>/dev/null | head -n 1)
  if [ -n "$log" ]; then
    echo "---- last $lines lines of the LSP log ($log) ----" >&2
    tail -n "$lines" "$log" | cut -c1-"$width" >&2
  fi
  echo "$label: kept $work$note" >&2
  exit 1
}
