-- `racelens:` virtual documents (warning code explanations, later schedules): the server
-- serves their text through the request `racelens/document`; they are shown read-only.
local compat = require('racelens.compat')

local M = {}

--- The `BufReadCmd` pattern. A name like `racelens:/codes/RL001` has no `://`, so Neovim
--- takes it for a relative path and makes the buffer name `<cwd>/racelens:/codes/RL001`
--- (`racelens:///codes/RL001` stays as it is). A pattern with a `/` is matched against the
--- whole name, and its `*` matches `/` too. One pattern: two matching the same buffer would
--- read it twice.
M.pattern = '*racelens:/*'

--- The `racelens:` URI a buffer name stands for, or nil.
function M.uri_from_name(name)
  local rest = name and name:match('racelens:(.*)$')
  if not rest then
    return nil
  end
  if rest:sub(1, 3) == '///' then -- `racelens:///codes/RL001`: empty authority
    rest = rest:sub(3)
  end
  return 'racelens:' .. rest
end

local function set_lines(bufnr, lines, filetype)
  local bo = vim.bo[bufnr]
  bo.readonly = false
  bo.modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  bo.buftype = 'nofile'
  bo.bufhidden = 'hide'
  bo.swapfile = false
  bo.modified = false
  bo.modifiable = false
  bo.readonly = true
  if filetype and bo.filetype ~= filetype then
    bo.filetype = filetype
  end
end

--- An initialized racelens client to ask, waiting (up to `wait_ms`) for one that is still
--- starting. Prefers the client of the alternate buffer (the file the link came from).
local function pick_client(clients_fn, wait_ms)
  local function initialized()
    local alt = vim.fn.bufnr('#')
    local first
    for _, client in ipairs(clients_fn()) do
      if client.initialized and not compat.is_stopped(client) then
        if alt > 0 and client.attached_buffers and client.attached_buffers[alt] then
          return client
        end
        first = first or client
      end
    end
    return first
  end
  local client = initialized()
  if client or #clients_fn() == 0 then
    return client
  end
  vim.wait(wait_ms, function()
    client = initialized()
    return client ~= nil
  end, 50)
  return client
end

--- Fills `bufnr` (named after a `racelens:` URI) with the text the server has for it.
--- `clients_fn` returns the racelens clients (initialized or starting).
function M.read(bufnr, name, clients_fn)
  local uri = M.uri_from_name(name)
  if not uri then
    set_lines(bufnr, { 'racelens: not a racelens: URI: ' .. tostring(name) })
    return
  end
  local client = pick_client(clients_fn, 10000)
  if not client then
    local msg = 'racelens: no racelens server is running to show ' .. uri
      .. ' (open a Java file of the project first, then :edit it again)'
    set_lines(bufnr, { msg })
    vim.notify(msg, vim.log.levels.WARN)
    return
  end
  local response, err = compat.request_sync(client, 'racelens/document', { uri = uri }, 10000, bufnr)
  local problem
  if not response then
    problem = 'no answer from the server (' .. tostring(err or 'request failed') .. ')'
  elseif response.err then
    problem = tostring(response.err.message or vim.inspect(response.err))
  elseif type(response.result) ~= 'table' or type(response.result.text) ~= 'string' then
    problem = 'unexpected answer: ' .. vim.inspect(response.result)
  end
  if problem then
    local msg = string.format('racelens: cannot show %s: %s', uri, problem)
    set_lines(bufnr, { msg })
    vim.notify(msg, vim.log.levels.ERROR)
    return
  end
  local result = response.result
  local text = result.text:gsub('\r\n', '\n')
  local lines = vim.split(text, '\n', { plain = true })
  if #lines > 1 and lines[#lines] == '' then
    table.remove(lines)
  end
  local filetype
  if type(result.languageId) == 'string' and result.languageId ~= '' then
    filetype = result.languageId == 'markdown' and 'markdown' or result.languageId
  end
  set_lines(bufnr, lines, filetype)
end

return M
