-- :checkhealth racelens
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
  local lines = racelens.info()
  local cmd = racelens._options().cmd
  if vim.fn.executable(cmd[1]) == 1 then
    r.ok(string.format('server command `%s`: %s', table.concat(cmd, ' '), vim.fn.exepath(cmd[1])))
  else
    r.error(string.format('server command `%s`: `%s` is not executable', table.concat(cmd, ' '), cmd[1]),
      { 'build racelens (cargo build --release -p racelens) and put it on PATH',
        "or pass its path: require('racelens').setup({ cmd = { '/path/to/racelens', 'lsp' } })" })
  end
  if not racelens._options().configured then
    r.warn("require('racelens').setup() has not been called")
  end
  for i = 2, #lines do
    r.info(lines[i])
  end
end

return M
