-- :checkhealth racelens: the Neovim version, how racelens is configured (setup(), or on
-- 0.11+ `vim.lsp.enable('racelens')` with the runtimepath config lsp/racelens.lua), the
-- server command (configured, or the racelens found on PATH or in the cargo bin folder),
-- and the running clients.
local compat = require('racelens.compat')
local config = require('racelens.config')

local M = {}

local function reporter()
  local h = vim.health
  if not (h and (h.start or h.report_start)) then
    h = require('health') -- 0.7
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

local SETUP_ADVICE = "call require('racelens').setup() in init.lua (editors/nvim/README.md)"
local ENABLE_ADVICE = "call vim.lsp.enable('racelens') in init.lua, with editors/nvim on the runtimepath"

--- How racelens is configured. Returns whether it is the config of vim.lsp.enable.
local function check_configuration(r, options)
  local setup_used = options.configured
  if not compat.has_lsp_enable then
    if setup_used then
      r.ok("configured with require('racelens').setup()")
    else
      r.warn("require('racelens').setup() has not been called", { SETUP_ADVICE })
    end
    r.info('vim.lsp.enable needs Neovim 0.11 or newer: this version uses setup()')
    return false
  end
  local files = vim.api.nvim_get_runtime_file('lsp/racelens.lua', true)
  if #files > 0 then
    r.ok('lsp/racelens.lua found on the runtimepath: ' .. table.concat(files, ', '))
  else
    r.error('lsp/racelens.lua is not on the runtimepath', { 'add editors/nvim of the racelens repository to the runtimepath' })
  end
  local enabled = compat.lsp_enabled('racelens')
  if enabled then
    r.ok("vim.lsp.enable('racelens') is in force")
  end
  if setup_used then
    r.ok("configured with require('racelens').setup()")
  end
  if enabled and setup_used then
    r.warn("both vim.lsp.enable('racelens') and setup() are in use: the clients share a name and a root, "
      .. 'but which config starts one depends on the order of events', { 'keep one of them' })
  elseif not enabled and not setup_used then
    r.warn("neither vim.lsp.enable('racelens') nor require('racelens').setup() has been called",
      { ENABLE_ADVICE, 'or ' .. SETUP_ADVICE })
  end
  return enabled and not setup_used
end

function M.check()
  local r = reporter()
  r.start('racelens')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') ~= 1 then
    r.error('Neovim ' .. version .. ' is too old: racelens needs 0.7 or newer')
  else
    r.ok('Neovim ' .. version .. (vim.lsp.start and ' (vim.lsp.start)' or ' (vim.lsp.start_client)'))
  end
  local racelens = require('racelens')
  check_configuration(r, racelens._options())
  local server = racelens.server()
  local cmd = server.cmd
  local shown = type(cmd) == 'table' and table.concat(cmd, ' ') or tostring(cmd)
  if server.problem then
    r.error(string.format('server command `%s`: %s', shown, server.problem),
      { 'install it: ' .. config.INSTALL .. ' (it goes to ~/.cargo/bin, or $CARGO_HOME/bin)',
        'or give its path: ' .. server.option })
  else
    r.ok(string.format('server command `%s`: %s', shown, racelens.server_origin(server)))
  end
  local lines = racelens.info()
  for i = 2, #lines do
    r.info(lines[i])
  end
end

return M
