-- What racelens lenses and commands run, and what the server asks the editor to do while
-- it explores:
-- - the server's commands (`racelens.exploreTest`, `.cancel`, `.showSchedule`, `.replay`)
--   go to it as `workspace/executeCommand`; they are registered as client-side commands
--   of the racelens clients, so that a lens reaches the server on every Neovim version;
-- - `racelens.copySchedule` (the `Copy` lens) is the client's own: the replay command
--   line goes to the registers `"` and `+`; so is `racelens.stepSchedule` (`Step through`:
--   schedule.lua);
-- - `racelens/showDocument` (and `window/showDocument` of a `racelens:` URI) opens the
--   document in a read-only scratch buffer; `$/progress` of explorations shows in the
--   message area; `window/showMessage` goes through vim.notify.
local compat = require('racelens.compat')
local protocol = require('racelens.protocol')
local documents = require('racelens.documents')
local lenses = require('racelens.lenses')
local progress = require('racelens.progress')

local M = {}

local NAME = 'racelens'
M.EXPLORE = protocol.server_commands.explore
M.CANCEL = protocol.server_commands.cancel
M.COPY = protocol.client_commands.copy_schedule
--- The commands the server advertises.
M.SERVER_COMMANDS = { M.EXPLORE, M.CANCEL, protocol.server_commands.show_schedule, protocol.server_commands.replay }

-- The plugin's entry module, for its client lookups (required when used: it requires us).
local function racelens()
  return require('racelens')
end

local notify = require('racelens.notify')

--- Shows a `racelens:` document of a client (scheduled: it may read from the server).
local function show_document(uri, client_id)
  documents.show(uri, client_id, racelens().clients)
end

--- What to say about `{ cancelled = n }`.
local function cancelled_message(result)
  local n = type(result) == 'table' and tonumber(result.cancelled) or 0
  if n == 0 then
    return 'no exploration was running or queued'
  end
  return string.format('cancelled %d exploration%s', n, n == 1 and '' or 's')
end

--- Shows what a server command answered: a message, a document to open, a cancel count.
local function show_result(command, result, client_id)
  if type(result) == 'string' and result ~= '' then
    notify(result)
  elseif type(result) == 'table' then
    if type(result.message) == 'string' and result.message ~= '' then
      notify(result.message)
    end
    if type(result.uri) == 'string' and documents.uri_from_name(result.uri) then
      show_document(result.uri, client_id)
    end
    if command == M.CANCEL then
      notify(cancelled_message(result))
    end
  end
end

--- Sends a command to a racelens server as `workspace/executeCommand` (the client of
--- `ctx.client_id`, else of `ctx.bufnr`, else any); then refreshes the buffer's lenses.
function M.execute_on_server(command, ctx)
  ctx = ctx or {}
  local client = ctx.client_id and compat.live_client(ctx.client_id)
  if not client or client.name ~= NAME then
    client = (ctx.bufnr and racelens().client_for_buf(ctx.bufnr)) or racelens().clients()[1]
  end
  if not client then
    notify('no racelens server is running to run ' .. tostring(command.command), vim.log.levels.WARN)
    return
  end
  local params = { command = command.command, arguments = command.arguments }
  local bufnr = ctx.bufnr
  local client_id = client.id
  compat.request(client, 'workspace/executeCommand', params, function(err, result)
    if err then
      notify(string.format('%s failed: %s', command.command, tostring(err.message or vim.inspect(err))),
        vim.log.levels.ERROR)
    else
      show_result(command.command, result, client_id)
    end
    if bufnr and vim.api.nvim_buf_is_valid(bufnr) then
      racelens().refresh_codelens(bufnr)
    end
  end, bufnr)
end

--- `racelens.copySchedule { text }`: the replay command line to the unnamed register and,
--- when Neovim has a clipboard, to `+`.
function M.copy_schedule(command)
  local arg = command.arguments and command.arguments[1]
  local text = type(arg) == 'table' and arg.text
  if type(text) ~= 'string' or text == '' then
    notify('nothing to copy (the Copy lens of a failing test passes its replay command)', vim.log.levels.WARN)
    return
  end
  vim.fn.setreg('"', text)
  local where = 'register "'
  if vim.fn.has('clipboard') == 1 and pcall(vim.fn.setreg, '+', text) then
    where = 'the clipboard (registers + and ")'
  end
  notify('copied to ' .. where .. ': ' .. text)
end

M.STEP = protocol.client_commands.step_schedule

local CLIENT_SIDE = {
  [M.COPY] = M.copy_schedule,
  [M.STEP] = function(command, ctx)
    require('racelens.schedule').step_lens(command, ctx)
  end,
}

--- The `commands` of a racelens client's config: every command its lenses run.
function M.client_commands()
  local out = vim.tbl_extend('force', {}, CLIENT_SIDE)
  for _, name in ipairs(M.SERVER_COMMANDS) do
    out[name] = M.execute_on_server
  end
  return out
end

--- Runs a lens's command: the client's own, or the server's.
function M.run(command, ctx)
  local fn = CLIENT_SIDE[command.command] or M.execute_on_server
  fn(command, ctx)
end

--- :RacelensRunLens [title]: runs a racelens lens of the cursor line (see lenses.lua).
function M.run_lens(query)
  local bufnr = vim.api.nvim_get_current_buf()
  local lnum = vim.api.nvim_win_get_cursor(0)[1] - 1
  local problem = lenses.pick(lenses.on_line(bufnr, lnum), query, function(lens)
    M.run(lens.command, { bufnr = bufnr })
  end)
  if problem then
    notify(problem, vim.log.levels.WARN)
  end
end

--- :RacelensCancel: cancels every exploration, queued or running, of every racelens server.
function M.cancel_all()
  local clients = racelens().clients()
  if #clients == 0 then
    notify('no racelens server is running, so no exploration is either')
  end
  for _, client in ipairs(clients) do
    M.execute_on_server({ command = M.CANCEL, arguments = {} }, { client_id = client.id })
  end
end

-- Handlers of what the server sends -------------------------------------------------------

local MESSAGE_LEVELS = {
  [1] = vim.log.levels.ERROR,
  [2] = vim.log.levels.WARN,
  [3] = vim.log.levels.INFO,
  [4] = vim.log.levels.DEBUG,
}

--- `window/showDocument`: `racelens:` URIs here, other URIs to Neovim's handler (if any).
local function on_show_document(err, result, ctx, config)
  local uri = result and result.uri
  if type(uri) == 'string' and documents.uri_from_name(uri) and not result.external then
    local ok, problem = pcall(show_document, uri, ctx.client_id)
    if not ok then
      notify('cannot show ' .. uri .. ': ' .. tostring(problem), vim.log.levels.ERROR)
    end
    return { success = ok }
  end
  local default = vim.lsp.handlers['window/showDocument']
  if default then
    return default(err, result, ctx, config)
  end
  return { success = false }
end

--- `$/progress`: Neovim's own record (statuslines read it), then explorations shown.
local function on_progress(err, result, ctx, config)
  local default = vim.lsp.handlers['$/progress']
  local answer = default and default(err, result, ctx, config)
  if type(result) == 'table' and progress.is_exploration(result.token) and type(result.value) == 'table' then
    progress.update(ctx.client_id, result.token, result.value)
  end
  return answer
end

--- The handlers a racelens client adds for explorations.
function M.handlers()
  return {
    -- For clients without `window/showDocument` (Neovim 0.7): `{ uri }`.
    -- params: a racelens.DocumentLink
    [protocol.methods.show_document] = function(_, params, ctx)
      if type(params) == 'table' and type(params.uri) == 'string' then
        vim.schedule(function()
          show_document(params.uri, ctx.client_id)
        end)
      end
    end,
    ['window/showDocument'] = on_show_document,
    ['$/progress'] = on_progress,
    -- The server's messages start with `racelens: `; through vim.notify they reach the
    -- user's notification setup (0.7 writes them to the message area itself).
    ['window/showMessage'] = function(_, params)
      if type(params) == 'table' and type(params.message) == 'string' then
        vim.notify(params.message, MESSAGE_LEVELS[params.type] or vim.log.levels.INFO)
      end
    end,
  }
end

return M
