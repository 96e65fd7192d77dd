-- racelens for Neovim: starts `racelens lsp` for Java buffers (one client per project
-- root), keeps its code lenses fresh, runs them (commands.lua), explores a test again
-- with a picked heuristic and seed (explore.lua), shows explorations' progress
-- (progress.lua), `racelens:` documents (documents.lua) and how many tests the change
-- selects (status.lua). Without a configured `cmd` it runs the racelens on PATH or in the
-- cargo bin folder (config.lua), and says what to do when there is none.
-- Two ways in: `require('racelens').setup()` (every version), or on 0.11+
-- `vim.lsp.enable('racelens')`, which reads lsp/racelens.lua (M.lsp_config); both build
-- the client config with config.lua.
-- Works on Neovim 0.7.2 (Debian 12) and current Neovim; see compat.lua.
local commands = require('racelens.commands')
local compat = require('racelens.compat')
local config = require('racelens.config')
local documents = require('racelens.documents')
local explore = require('racelens.explore')
local lenses = require('racelens.lenses')
local progress = require('racelens.progress')
local lists = require('racelens.lists')
local schedule = require('racelens.schedule')
local selection_status = require('racelens.status')
local stepper = require('racelens.stepper')

local M = {}

local NAME = config.NAME
local defaults = config.defaults

local state = {
  opts = nil, -- the options of the last setup()
  lsp_default_cmd = nil, -- the cmd lsp/racelens.lua gave (0.11+), to tell a user's from ours
  roots = {}, -- root dir -> client id (one client per root)
  warned_cmd = false, -- the missing-binary message is shown once
  lens_retry = {}, -- bufnr -> true while a refresh waits for an in-flight one
}

local augroup = 'racelens'
local lens_augroup = 'racelens_codelens'
local documents_augroup = 'racelens_documents'

local notify = require('racelens.notify')

--- Every racelens client: the ones Neovim lists, plus the ones we started that are still
--- initializing (0.7's `get_active_clients` leaves those out).
local function all_clients()
  local seen, out = {}, {}
  for _, client in ipairs(compat.clients_named(NAME)) do
    if not compat.is_stopped(client) then
      seen[client.id] = true
      table.insert(out, client)
    end
  end
  for _, id in pairs(state.roots) do
    local client = not seen[id] and compat.live_client(id)
    if client then
      seen[id] = true
      table.insert(out, client)
    end
  end
  return out
end
M.clients = all_clients

--- The racelens client attached to a buffer, if any.
local function client_for_buf(bufnr)
  for _, client in ipairs(all_clients()) do
    if vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return nil
end
M.client_for_buf = client_for_buf

local function is_file(path)
  local stat = compat.uv.fs_stat(path)
  return stat ~= nil
end

--- The nearest directory above `path` (a file) that holds one of `markers`.
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(markers) do
      if is_file(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

local function cmd_problem(cmd)
  if type(cmd) == 'function' then -- 0.11+: a function that starts the server itself
    return nil
  end
  if type(cmd) ~= 'table' or type(cmd[1]) ~= 'string' or cmd[1] == '' then
    return 'the option `cmd` must be a list like { "racelens", "lsp" }'
  end
  if vim.fn.executable(cmd[1]) ~= 1 then
    return string.format('cannot start the language server: `%s` is not an executable%s', cmd[1],
      cmd[1]:find('/') and '' or ' on PATH')
  end
  return nil
end

local SETUP_OPTION = "require('racelens').setup({ cmd = { '/path/to/racelens', 'lsp' } })"
local CONFIG_OPTION = "vim.lsp.config('racelens', { cmd = { '/path/to/racelens', 'lsp' } })"

--- The server the next client starts, and where it comes from: `{ cmd, source, path,
--- problem, option }`: `source` is `setup()` or `vim.lsp.config` for a configured `cmd`,
--- else where the plugin found `racelens` (`PATH`, `$CARGO_HOME/bin`, `~/.cargo/bin`), or
--- nil when it found none; `path` the binary; `problem` what keeps it from starting;
--- `option` how to configure it.
function M.server()
  local configured, source, option = nil, nil, SETUP_OPTION
  if state.opts then
    configured, source = state.opts.cmd, 'setup()'
  elseif compat.lsp_enabled(NAME) then
    option = CONFIG_OPTION
    local resolved = vim.lsp.config[NAME]
    local cmd = resolved and resolved.cmd
    if cmd ~= nil and not vim.deep_equal(cmd, state.lsp_default_cmd) then
      configured, source = cmd, 'vim.lsp.config'
    end
  end
  if configured ~= nil then
    local problem = cmd_problem(configured)
    local path = not problem and type(configured) == 'table' and vim.fn.exepath(configured[1]) or nil
    return { cmd = configured, source = source, path = path, problem = problem, option = option }
  end
  local found, looked = config.find_server()
  if found then
    return { cmd = { found.path, 'lsp' }, source = found.from, path = found.path, option = option }
  end
  return { cmd = { 'racelens', 'lsp' }, problem = 'no `racelens` on ' .. looked, option = option }
end

--- What to do about a server that cannot start (once, until the next setup or restart).
--- Scheduled: from a FileType autocommand of `:edit` the error would abort the command
--- (0.12 raises it there) and come wrapped in "Error detected while processing".
local function warn_cmd(server)
  if state.warned_cmd then
    return
  end
  state.warned_cmd = true
  local message = server.problem .. '.\nInstall it (' .. config.INSTALL .. ', which puts it in the cargo bin folder), '
    .. 'or give its path: ' .. server.option
  vim.schedule(function()
    notify(message, vim.log.levels.ERROR)
  end)
end

--- 0.11+ with `vim.lsp.enable('racelens')`: Neovim skips a config whose `cmd` is not
--- executable without a word (in its log only); say what to do instead.
function M._check_enabled_server()
  if state.opts or not compat.lsp_enabled(NAME) then
    return
  end
  local server = M.server()
  if server.problem then
    warn_cmd(server)
  end
end

-- Code lenses ---------------------------------------------------------------------------

local function has_pending_codelens(client, bufnr)
  for _, request in pairs(client.requests or {}) do
    if request.type == 'pending' and request.method == 'textDocument/codeLens' and request.bufnr == bufnr then
      return true
    end
  end
  return false
end

--- Re-requests the code lenses of a buffer (default: the current one) from its racelens
--- client. Returns false when no initialized racelens client with code lenses is attached.
function M.refresh_codelens(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return false
  end
  local client = client_for_buf(bufnr)
  -- Before `initialize` is answered a request would be dropped (0.7 even reports an
  -- "unsupported method" error and keeps the buffer marked as refreshing forever).
  if not client or not client.initialized or not client.server_capabilities
      or not client.server_capabilities.codeLensProvider then
    return false
  end
  if compat.codelens_provider then -- 0.12+: Neovim requests them itself once enabled
    vim.lsp.codelens.enable(true, { bufnr = bufnr })
    local on_refresh = vim.lsp.handlers['workspace/codeLens/refresh']
    if on_refresh then
      pcall(on_refresh, nil, nil, { method = 'workspace/codeLens/refresh', client_id = client.id })
    end
    return true
  end
  -- 0.7 to 0.11 drop a refresh while one is in flight for the buffer, whose answer may be
  -- stale (the server answers requests concurrently): refresh again once it is back.
  if has_pending_codelens(client, bufnr) then
    if not state.lens_retry[bufnr] then
      state.lens_retry[bufnr] = true
      local tries = 0
      local function retry()
        tries = tries + 1
        local c = client_for_buf(bufnr)
        if c and has_pending_codelens(c, bufnr) and tries < 100 then
          vim.defer_fn(retry, 100)
          return
        end
        state.lens_retry[bufnr] = nil
        -- the handler clears its in-flight mark just after the reply
        vim.defer_fn(function()
          M.refresh_codelens(bufnr)
        end, 50)
      end
      vim.defer_fn(retry, 100)
    end
    return true
  end
  -- Asked of this client directly and answered by Neovim's own handler: `codelens.refresh`
  -- keeps a per-buffer in-flight mark that the request of a stopped client (a restart while
  -- it was pending) never clears on 0.7, which then drops every later refresh of the buffer.
  if type(vim.lsp.codelens.on_codelens) == 'function' then
    local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
    compat.request(client, 'textDocument/codeLens', params, vim.lsp.codelens.on_codelens, bufnr)
    return true
  end
  -- 0.7 refreshes the current buffer only (and ignores the argument); 0.10 and 0.11 take
  -- `{ bufnr = ... }`. Running it in the buffer works for both.
  vim.api.nvim_buf_call(bufnr, function()
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end)
  return true
end

--- Refreshes the lenses of every buffer the client is attached to.
function M.refresh_client_lenses(client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  if not client then
    return
  end
  for _, bufnr in ipairs(compat.buffers_of(client)) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.refresh_codelens(bufnr)
    end
  end
end

local function setup_lens_autocmds(bufnr)
  local group = vim.api.nvim_create_augroup(lens_augroup, { clear = false })
  vim.api.nvim_clear_autocmds({ group = group, buffer = bufnr })
  if compat.codelens_provider then
    return -- 0.12+ refreshes enabled lenses itself
  end
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost', 'CursorHold' }, {
    group = group,
    buffer = bufnr,
    desc = 'racelens: refresh code lenses',
    callback = function(args)
      M.refresh_codelens(args.buf)
    end,
  })
end

-- Starting and attaching ----------------------------------------------------------------

--- on_attach of every racelens client (config.lua): the lenses, then the user's on_attach
--- of setup().
function M.on_attach(client, bufnr)
  setup_lens_autocmds(bufnr)
  M.refresh_codelens(bufnr)
  local user = state.opts and state.opts.on_attach
  if user then
    local ok, err = pcall(user, client, bufnr)
    if not ok then
      notify('on_attach failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

--- on_exit of every racelens client (config.lua). May run in a libuv callback: plain Lua
--- here, the rest scheduled.
function M._on_exit(code, signal, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local cmd = client and client.config and client.config.cmd
  local initialized = client and client.initialized
  for r, id in pairs(state.roots) do
    if id == client_id then
      state.roots[r] = nil
    end
  end
  progress.forget_client(client_id)
  selection_status.forget(client_id)
  if not initialized and (code ~= 0 or (signal ~= 0 and signal ~= 15)) then
    vim.schedule(function()
      local shown = type(cmd) == 'table' and table.concat(cmd, ' ') or tostring(cmd)
      notify(string.format(
        '`%s` exited (code %s, signal %s) before it initialized. Does `%s --help` work in a '
          .. 'shell? The server\'s stderr is in the LSP log: %s',
        shown, tostring(code), tostring(signal), shown, compat.log_path()),
        vim.log.levels.ERROR)
    end)
  end
end

local function matches_filetype(bufnr)
  local ft = vim.bo[bufnr].filetype
  for _, want in ipairs(state.opts.filetypes) do
    if ft == want then
      return true
    end
  end
  return false
end

--- Starts (or reuses) the racelens client for a buffer's project and attaches the buffer.
--- Returns the client id, or nil when the buffer is not a file of the filetypes or the
--- server cannot start.
function M.attach(bufnr)
  if not state.opts then
    notify('call require("racelens").setup() first', vim.log.levels.WARN)
    return nil
  end
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' or not matches_filetype(bufnr) then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  -- Only files on disk: not unnamed buffers, nor `fugitive://`, `racelens:` and the like.
  if name == '' or name:match('^%a[%w+.-]+:') or name:find('racelens:', 1, true) then
    return nil
  end
  local path = vim.fn.fnamemodify(name, ':p')
  local root = M.find_root(path, state.opts.root_markers)
  if not root then -- no marker: the file's folder (or the nearest one that exists, for a new file)
    root = vim.fn.fnamemodify(path, ':h')
    while vim.fn.isdirectory(root) ~= 1 and vim.fn.fnamemodify(root, ':h') ~= root do
      root = vim.fn.fnamemodify(root, ':h')
    end
  end

  local existing = compat.live_client(state.roots[root])
  if existing then
    if not vim.lsp.buf_is_attached(bufnr, existing.id) then
      vim.lsp.buf_attach_client(bufnr, existing.id)
    end
    return existing.id
  end

  local server = M.server()
  if server.problem then
    warn_cmd(server)
    return nil
  end

  local client_config = config.client_config(state.opts)
  client_config.cmd = server.cmd
  client_config.root_dir = root
  local ok, id = pcall(function()
    if compat.has_lsp_start then
      -- 0.8+: starts a client for this root or reuses the one that has it, and attaches.
      return vim.lsp.start(client_config, { bufnr = bufnr })
    end
    local client_id = vim.lsp.start_client(client_config)
    if client_id then
      vim.lsp.buf_attach_client(bufnr, client_id)
    end
    return client_id
  end)
  if not ok or not id then
    notify(string.format('could not start `%s`: %s', table.concat(server.cmd, ' '), tostring(id)),
      vim.log.levels.ERROR)
    return nil
  end
  state.roots[root] = id
  return id
end

local function attach_all()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.attach(bufnr)
    end
  end
end

-- Commands ------------------------------------------------------------------------------

--- Stops every racelens client, waits for them to exit, and starts again for the open
--- buffers of the filetypes.
function M.restart()
  local clients = all_clients()
  for _, client in ipairs(clients) do
    compat.stop(client)
  end
  local function all_gone()
    for _, client in ipairs(clients) do
      if vim.lsp.get_client_by_id(client.id) then
        return false
      end
    end
    return true
  end
  if not vim.wait(5000, all_gone, 50) then
    for _, client in ipairs(clients) do
      compat.stop(client, true)
    end
    vim.wait(2000, all_gone, 50)
  end
  state.roots = {}
  state.warned_cmd = false
  if state.opts then
    attach_all()
  elseif compat.lsp_enabled(NAME) then
    -- Resolve lsp/racelens.lua again: it finds a racelens installed since.
    vim.lsp.config(NAME, {})
    compat.lsp_start_enabled()
  end
  notify(string.format('restarted (%d client%s stopped)', #clients, #clients == 1 and '' or 's'))
end

--- The server command that starts the next client: setup()'s, else (0.11+) the one of
--- the config `vim.lsp.enable('racelens')` uses (lsp/racelens.lua with what
--- `vim.lsp.config('racelens', ...)` changed), else the racelens found (M.server).
function M.server_cmd()
  return M.server().cmd
end

--- How M.server() came to its binary, in a few words.
function M.server_origin(server)
  if server.problem then
    return server.problem
  elseif server.source == 'setup()' or server.source == 'vim.lsp.config' then
    return 'found: ' .. (server.path or 'a function') .. ', configured with ' .. server.source
  elseif server.source == 'PATH' then
    return 'found on PATH: ' .. server.path
  end
  return string.format('found in %s: %s (not on PATH)', server.source, server.path)
end

--- Lines describing the racelens clients (what :RacelensInfo shows).
function M.info()
  local lines = {}
  local opts = state.opts or defaults
  local server = M.server()
  local cmd = server.cmd
  table.insert(lines, string.format('racelens: server command `%s` (%s)',
    type(cmd) == 'table' and table.concat(cmd, ' ') or tostring(cmd), M.server_origin(server)))
  local clients = all_clients()
  if #clients == 0 then
    table.insert(lines, 'racelens: no client running (clients start for buffers of filetype '
      .. table.concat(opts.filetypes, ', ') .. ')')
  end
  for _, client in ipairs(clients) do
    local bufs = {}
    for _, b in ipairs(compat.buffers_of(client)) do
      table.insert(bufs, string.format('%d:%s', b, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':~:.')))
    end
    local ccmd = client.config and client.config.cmd
    table.insert(lines, string.format('client %d  root %s  %s', client.id, tostring(compat.root_of(client)),
      client.initialized and 'running' or 'starting'))
    table.insert(lines, string.format('  cmd: %s', type(ccmd) == 'table' and table.concat(ccmd, ' ') or tostring(ccmd)))
    table.insert(lines, string.format('  buffers: %s', #bufs > 0 and table.concat(bufs, ', ') or '(none)'))
  end
  local running = progress.info_lines()
  if #running > 0 then
    table.insert(lines, 'explorations running:')
    vim.list_extend(lines, running)
  end
  table.insert(lines, 'LSP log: ' .. compat.log_path())
  return lines
end

local function show_info()
  vim.api.nvim_echo({ { table.concat(M.info(), '\n') } }, true, {})
end

--- Runs a racelens code lens of the cursor line: the one whose title `title` names (the
--- same, else the start of one, else a part; case ignored), the only one, or one picked
--- with vim.ui.select.
M.run_lens = commands.run_lens

--- Cancels every exploration of every racelens server.
M.cancel = commands.cancel_all

--- Explores the test at the cursor again: `explore_again('basic 7')` with that heuristic and
--- seed, `explore_again()` with the ones picked with vim.ui.select and vim.ui.input.
M.explore_again = explore.run

--- The explorations the servers reported (running, and the last finished ones):
--- `{ client_id, token, title, message, done }`, oldest first.
M.explorations = progress.list

--- For a statusline: `racelens: 2 tests for this change` for the buffer's server (current
--- buffer by default), or '' when none has said yet.
function M.status(bufnr)
  local client = client_for_buf(bufnr or vim.api.nvim_get_current_buf())
  return selection_status.text(selection_status.get(client and client.id))
end

--- Lists the tests the change selects (of the current buffer's server), best first: in the
--- quickfix list (`:cnext` walks them), or with `pick` offered with vim.ui.select (which
--- telescope's or fzf-lua's ui-select replaces when installed) to explore the one picked.
function M.selected(pick)
  local client = client_for_buf(vim.api.nvim_get_current_buf()) or all_clients()[1]
  local status = selection_status.get(client and client.id)
  if status then
    vim.api.nvim_echo({ { table.concat(vim.list_extend({ selection_status.text(status) }, selection_status.lines(status)), '\n') } }, false, {})
  end
  if not pick then
    local items = lists.selected_items(status)
    if #(status and status.tests or {}) > 0 then
      lists.set_quickfix(items, selection_status.text(status))
      return
    end
  end
  selection_status.pick(status, function(test)
    commands.execute_on_server({ command = commands.EXPLORE, arguments = { test.explore } }, { client_id = client and client.id })
  end)
end

--- Puts the steps of a failing schedule in the quickfix list and loads them for
--- :RacelensStep: of the test named (`pkg.FooTest#testX`), else of the ✗ lens at or above
--- the cursor.
M.schedule = schedule.run

--- Walks the loaded schedule: `step('next')`, 'prev', 'first', 'last', 'next-preemption',
--- 'prev-preemption', a step number, or 'stop'.
M.step = stepper.step

--- Puts the racelens warning under the cursor and its related locations in the window's
--- location list.
M.related = lists.related

--- Opens the explanation (`racelens:/codes/RLxxx`) of the racelens diagnostic under the
--- cursor, or of the first one on the line.
function M.explain()
  local d = lists.diagnostic_at_cursor()
  if not d then
    notify('no racelens diagnostic on this line', vim.log.levels.WARN)
    return
  end
  local lsp = d.user_data and d.user_data.lsp or {}
  local href = lsp.codeDescription and lsp.codeDescription.href
  local uri = (type(href) == 'string' and documents.uri_from_name(href)) or ('racelens:/codes/' .. lists.code_of(d))
  vim.cmd('split ' .. vim.fn.fnameescape(uri))
end

--- Sends new settings to the running servers (`workspace/didChangeConfiguration`; the
--- server pulls the `racelens` section again) and uses them for the next clients.
function M.set_settings(settings)
  if state.opts then
    state.opts.settings = settings or {}
  end
  local value = config.settings_value(settings)
  for _, client in ipairs(all_clients()) do
    client.config.settings = { racelens = value }
    if client.settings ~= nil then
      client.settings = client.config.settings
    end
    if client.initialized then
      compat.notify(client, 'workspace/didChangeConfiguration', { settings = { racelens = value } })
    end
  end
end

--- What both ways in set up besides the clients: the commands, and `racelens:` documents.
local function create_commands()
  local cmds = {
    RacelensRestart = { M.restart, 'racelens: restart the language server' },
    RacelensInfo = { show_info, 'racelens: show the clients, their roots, explorations and the server command' },
    RacelensExplain = { M.explain, 'racelens: explain the racelens warning on this line' },
    RacelensCancel = { M.cancel, 'racelens: cancel every exploration' },
    RacelensRelated = { M.related, 'racelens: the warning on this line and its related locations, in the location list' },
  }
  for name, def in pairs(cmds) do
    vim.api.nvim_create_user_command(name, function()
      def[1]()
    end, { desc = def[2] })
  end
  -- Commands with arguments: name, what runs, nargs, completion, description.
  local with_args = {
    { 'RacelensRunLens', M.run_lens, '?', lenses.complete, 'racelens: run a code lens of the current line (optionally: its title)' },
    { 'RacelensExplore', explore.run, '*', explore.complete, 'racelens: explore the test at the cursor again (optionally: a heuristic, a seed)' },
    { 'RacelensSchedule', M.schedule, '?', nil, 'racelens: the failing schedule of the test at the cursor (or named) in the quickfix list, for :RacelensStep' },
    { 'RacelensStep', M.step, '?', stepper.complete, 'racelens: step through the loaded schedule (next, prev, first, last, next-preemption, prev-preemption, N, stop)' },
  }
  for _, c in ipairs(with_args) do
    vim.api.nvim_create_user_command(c[1], function(args)
      c[2](args.args)
    end, { nargs = c[3], complete = c[4], desc = c[5] })
  end
  vim.api.nvim_create_user_command('RacelensSelected', function(args)
    M.selected(args.bang)
  end, { bang = true, desc = 'racelens: the tests the change selects in the quickfix list (!: pick one to explore)' })
  vim.api.nvim_create_autocmd('BufReadCmd', {
    group = vim.api.nvim_create_augroup(documents_augroup, { clear = true }),
    pattern = documents.pattern,
    desc = 'racelens: show a racelens: document',
    callback = function(args)
      documents.read(args.buf, vim.api.nvim_buf_get_name(args.buf), all_clients)
    end,
  })
end

-- Setup ---------------------------------------------------------------------------------

--- The options in use (for :checkhealth), with `configured` = whether setup() ran.
function M._options()
  local o = {}
  for k, v in pairs(state.opts or defaults) do
    o[k] = v
  end
  o.configured = state.opts ~= nil
  return o
end

--- The config that lsp/racelens.lua returns for `vim.lsp.enable('racelens')` (0.11+):
--- the one setup() starts clients with, for the default options (`vim.lsp.config`
--- overrides them), without a root (Neovim finds it from `root_markers`). Reading it also
--- creates the commands and the `racelens:` document reader.
function M.lsp_config()
  create_commands()
  local client_config = config.client_config(defaults)
  state.lsp_default_cmd = vim.deepcopy(client_config.cmd)
  -- Once Neovim has merged the user's vim.lsp.config: is there a server to start?
  vim.schedule(M._check_enabled_server)
  return client_config
end

--- Sets racelens up. `opts` (all optional):
---   cmd          server command, default: `racelens lsp` with the racelens on PATH,
---                else the one in the cargo bin folder ($CARGO_HOME/bin, ~/.cargo/bin)
---   settings     the `racelens` settings (editors/README.md), e.g. { base = 'HEAD' }
---   filetypes    default { 'java' }
---   root_markers default { 'racelens.toml', '.git' }
---   on_attach    function(client, bufnr), called for each attached buffer
function M.setup(opts)
  opts = vim.tbl_extend('force', vim.deepcopy(defaults), opts or {})
  local problem = config.validate(opts)
  if problem then
    notify('setup: ' .. problem, vim.log.levels.ERROR)
    return
  end
  state.opts = opts
  state.warned_cmd = false

  local group = vim.api.nvim_create_augroup(augroup, { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = opts.filetypes,
    desc = 'racelens: start the language server',
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  create_commands()
  attach_all()
end

return M
