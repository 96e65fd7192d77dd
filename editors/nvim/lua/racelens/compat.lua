-- Differences between the Neovim versions racelens supports, in one place.
--
-- Debian's Neovim 0.7.2 has `vim.lsp.start_client` + `vim.lsp.buf_attach_client` only;
-- 0.8 adds `vim.lsp.start`; 0.10 adds `vim.lsp.get_clients` and `codelens.refresh({bufnr})`;
-- 0.11 turns client functions into methods (`client:request(...)`, the dot form is
-- deprecated) and adds `vim.lsp.config`/`vim.lsp.enable`; 0.12 replaces `codelens.refresh`
-- by `codelens.enable` and `vim.lsp.get_log_path` by `vim.lsp.log.get_filename`.
-- Everything is detected at run time.
local M = {}

local uv = vim.uv or vim.loop
M.uv = uv

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end
M.has = has

--- `vim.lsp.start` (0.8+): starts a client for a root, or reuses the one that has it.
M.has_lsp_start = type(vim.lsp.start) == 'function'

--- 0.11+: client functions are methods; calling them with a dot is deprecated.
local method_calls = has('0.11')

--- 0.12+: code lenses are a capability enabled per buffer (`vim.lsp.codelens.enable`),
--- refreshed by Neovim itself as the buffer changes.
M.codelens_provider = type(vim.lsp.codelens.enable) == 'function'

--- Calls the client function `name` with `...`: `client:name(...)` on 0.11+,
--- `client.name(...)` before.
local function call(client, name, ...)
  if method_calls then
    return client[name](client, ...)
  end
  return client[name](...)
end

function M.request(client, method, params, handler, bufnr)
  return call(client, 'request', method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout_ms, bufnr)
  return call(client, 'request_sync', method, params, timeout_ms, bufnr)
end

function M.notify(client, method, params)
  return call(client, 'notify', method, params)
end

function M.is_stopped(client)
  return call(client, 'is_stopped')
end

--- Every client named `name`, initialized or not when the version can tell.
function M.clients_named(name)
  if vim.lsp.get_clients then -- 0.10+ (0.11+ list the starting ones with `_uninitialized`)
    return vim.lsp.get_clients({ name = name, _uninitialized = true })
  end
  local out = {}
  for _, client in ipairs(vim.lsp.get_active_clients()) do
    if client.name == name then
      table.insert(out, client)
    end
  end
  return out
end

--- A live (not stopped, not stopping) client with this id, initialized or not.
function M.live_client(id)
  if not id then
    return nil
  end
  local client = vim.lsp.get_client_by_id(id)
  if client and not M.is_stopped(client) then
    return client
  end
  return nil
end

function M.buffers_of(client)
  local out = {}
  for bufnr, attached in pairs(client.attached_buffers or {}) do
    if attached and vim.api.nvim_buf_is_valid(bufnr) then
      table.insert(out, bufnr)
    end
  end
  return out
end

function M.root_of(client)
  return client.root_dir or (client.config and client.config.root_dir)
end

--- Asks the client to shut down (or kills the server with `force`).
function M.stop(client, force)
  return call(client, 'stop', force)
end

--- The LSP log's path (`vim.lsp.get_log_path` is deprecated from 0.12 on).
function M.log_path()
  local log = vim.lsp.log
  if type(log) == 'table' and type(log.get_filename) == 'function' then
    return log.get_filename()
  end
  return vim.lsp.get_log_path()
end

--- 0.11+: `vim.lsp.config` and `vim.lsp.enable`, which read `lsp/<name>.lua`.
M.has_lsp_enable = type(vim.lsp.enable) == 'function'

--- Whether `vim.lsp.enable(name)` is in force (0.12 has `is_enabled`, 0.11 a table).
function M.lsp_enabled(name)
  if not M.has_lsp_enable then
    return false
  end
  if type(vim.lsp.is_enabled) == 'function' then
    return vim.lsp.is_enabled(name)
  end
  local enabled = rawget(vim.lsp, '_enabled_configs')
  return type(enabled) == 'table' and enabled[name] ~= nil
end

--- Lets `vim.lsp.enable` start its clients again for the loaded buffers (what it does
--- itself once Neovim has started: its `FileType` autocommands, run for each buffer).
function M.lsp_start_enabled()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      pcall(vim.api.nvim_exec_autocmds, 'FileType', { group = 'nvim.lsp.enable', buffer = bufnr })
    end
  end
end

--- Code lenses of a buffer, as a plain list of `lsp.CodeLens`, on every version
--- (0.12 returns `{ client_id, lens }` items from `get({ bufnr = ... })`).
function M.codelenses(bufnr)
  if M.codelens_provider then
    local out = {}
    for _, item in ipairs(vim.lsp.codelens.get({ bufnr = bufnr })) do
      table.insert(out, item.lens or item)
    end
    return out
  end
  return vim.lsp.codelens.get(bufnr)
end

return M
