-- `racelens:` virtual documents (warning code explanations, failing schedules): the
-- server serves their text through the request `racelens/document`; they are shown
-- read-only, in `nofile` buffers. A schedule (`racelens:/schedule/3/PoolTest.borrow.md`) belongs to the
-- server that numbered it: a buffer remembers which client its text came from, and shows
-- the text again when another one asks for that URI (a restarted server numbers anew).
local compat = require('racelens.compat')
local protocol = require('racelens.protocol')

local M = {}

--- bufnr -> id of the client whose text the buffer holds.
local read_from = {}
--- The client to ask for the next read (set around the `:split` of `M.show`).
local preferred_client

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
--- starting. Prefers `preferred_client`, then the client of the alternate buffer (the file
--- the link came from).
local function pick_client(clients_fn, wait_ms)
  local preferred = compat.live_client(preferred_client)
  if preferred and preferred.initialized then
    return preferred
  end
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
  read_from[bufnr] = nil
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
  local response, err = compat.request_sync(client, protocol.methods.document, { uri = uri }, 10000, bufnr)
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
  read_from[bufnr] = client.id
end

--- The buffer named after `uri`, if any.
function M.buffer_for(uri)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if M.uri_from_name(vim.api.nvim_buf_get_name(bufnr)) == uri then
      return bufnr
    end
  end
  return nil
end

--- Runs `fn` with `client_id` as the client the reads it causes ask first.
local function asking(client_id, fn)
  preferred_client = client_id
  local ok, err = pcall(fn)
  preferred_client = nil
  if not ok then
    error(err, 0)
  end
end

--- A window of the current tab page that shows `bufnr`, if any.
local function window_of(bufnr)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == bufnr then
      return win
    end
  end
  return nil
end

--- Shows the document `uri` of the client `client_id` (nil: any racelens client) in a
--- window of the current tab page: the one that shows it already, else a new split. The
--- text is read again when the buffer's came from another client. Returns the buffer.
function M.show(uri, client_id, clients_fn)
  local bufnr = M.buffer_for(uri)
  if not bufnr or not vim.api.nvim_buf_is_loaded(bufnr) then
    -- `:split` reads it (BufReadCmd), from that client.
    local target = bufnr and ('sbuffer ' .. bufnr) or ('split ' .. vim.fn.fnameescape(uri))
    asking(client_id, function()
      vim.cmd(target)
    end)
    return vim.api.nvim_get_current_buf()
  end
  local win = window_of(bufnr)
  if win then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd('sbuffer ' .. bufnr)
  end
  if client_id == nil or read_from[bufnr] ~= client_id then
    asking(client_id, function()
      M.read(bufnr, vim.api.nvim_buf_get_name(bufnr), clients_fn)
    end)
  end
  return bufnr
end

return M
