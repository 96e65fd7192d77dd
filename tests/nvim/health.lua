-- Tests of the two ways to configure the plugin against tests/nvim/fake_server.py, and of
-- what :checkhealth racelens says about each (its report read from its buffer):
-- nothing configured, then on Neovim 0.11+ `vim.lsp.config` + `vim.lsp.enable('racelens')`
-- with the runtimepath config lsp/racelens.lua (settings merged into ours, sent as
-- initializationOptions and served for workspace/configuration, the experimental
-- capability, one client per root, lenses refreshed on the server's request, a lens run,
-- a racelens: document, :RacelensRestart), then setup() (on every version).
-- Run by tests/nvim/client.sh (env: RACELENS_NVIM_RTP, RACELENS_FAKE_SERVER, RACELENS_CLIENT_DIR).

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, check = harness.out, harness.check

vim.opt.runtimepath:prepend(vim.env.RACELENS_NVIM_RTP)
harness.set_log_level('debug')
local dir = vim.env.RACELENS_CLIENT_DIR .. '/health'
local server = { vim.env.RACELENS_PYTHON or 'python3', vim.env.RACELENS_FAKE_SERVER }
local notes = harness.capture_notes()
local compat = require('racelens.compat')

local health = harness.health

--- Checks that the report has (or, with `absent`, has not) a line with `text`.
local function reports(report, text, absent)
  local found = report:find(text, 1, true) ~= nil
  check(found ~= (absent == true), string.format(':checkhealth racelens %s "%s":\n%s',
    absent and 'says' or 'does not say', text, report))
end

local seen = harness.fake_seen

local function wait_client(bufnr)
  return harness.wait_attached(bufnr, vim.api.nvim_buf_get_name(bufnr))
end

--- 0.11+: vim.lsp.enable('racelens'), configured with vim.lsp.config only.
local function enabled(proj)
  local settings = { base = 'main', java = { sourceRoots = { 'src' } } }
  vim.lsp.config('racelens', { cmd = server, settings = { racelens = settings } })
  vim.lsp.enable('racelens')
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/Pool.java'))
  local pool = vim.api.nvim_get_current_buf()
  local client = wait_client(pool)
  check(client.name == 'racelens' and client.root_dir == proj, 'client ' .. client.name .. ' root ' .. tostring(client.root_dir))
  check(vim.wait(5000, function()
    local c = seen(client).configuration
    return c ~= nil and c ~= vim.NIL
  end, 20), 'server got no workspace/configuration answer')
  local s = seen(client)
  check(vim.deep_equal(s.initializationOptions, settings), 'initializationOptions: ' .. vim.inspect(s.initializationOptions))
  check(vim.deep_equal(s.configuration, { settings }), 'configuration answer: ' .. vim.inspect(s.configuration))
  check(vim.deep_equal(s.experimental, { racelens = { selectionStatus = true, stepSchedule = true } }), 'experimental capabilities: ' .. vim.inspect(s.experimental))
  out('ok: vim.lsp.enable: started for ' .. proj .. ' with the settings of vim.lsp.config and the experimental capability')
  check(vim.wait(5000, function()
    return #vim.diagnostic.get(pool) > 0
  end, 20), 'no diagnostics')

  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/PoolTest.java'))
  local test_buf = vim.api.nvim_get_current_buf()
  check(wait_client(test_buf).id == client.id, 'a second file of the root got another client')
  check(vim.wait(5000, function()
    return #compat.codelenses(test_buf) > 0
  end, 20), 'no code lens after racelens/codeLensRefresh')
  local lens = compat.codelenses(test_buf)[1]
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  vim.cmd('RacelensRunLens')
  check(vim.wait(5000, function()
    return #seen(client).executeCommand > 0
  end, 20), ':RacelensRunLens sent no workspace/executeCommand')
  check(seen(client).executeCommand[1].command == 'racelens.exploreTest', 'executeCommand: ' .. vim.inspect(seen(client).executeCommand))
  vim.cmd('edit racelens:/codes/RL001')
  check(vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] == '# racelens:/codes/RL001', 'racelens: document: ' .. harness.buffer_text(0))
  out('ok: vim.lsp.enable: one client per root, lenses refreshed, :RacelensRunLens, racelens: documents')

  vim.cmd('RacelensRestart')
  local restarted = wait_client(pool)
  check(restarted.id ~= client.id and vim.lsp.get_client_by_id(client.id) == nil, ':RacelensRestart kept client ' .. client.id)
  check(wait_client(test_buf).id == restarted.id and #require('racelens').clients() == 1,
    'after :RacelensRestart: ' .. table.concat(require('racelens').info(), '\n'))
  check(vim.deep_equal(seen(restarted).initializationOptions, settings), 'settings after restart: ' .. vim.inspect(seen(restarted).initializationOptions))
  client = restarted
  out('ok: :RacelensRestart starts the vim.lsp.enable client again')

  local report = health()
  reports(report, 'lsp/racelens.lua found on the runtimepath: ' .. vim.env.RACELENS_NVIM_RTP .. '/lsp/racelens.lua')
  reports(report, "vim.lsp.enable('racelens') is in force")
  reports(report, 'server command `' .. table.concat(server, ' ') .. '`: ')
  reports(report, 'client ' .. client.id .. '  root ' .. proj .. '  running')
  local info = require('racelens').info()[1]
  check(info:find('server command `' .. table.concat(server, ' ') .. '` (found: ', 1, true), ':RacelensInfo says ' .. info)
  reports(report, 'setup()', true)
  reports(report, 'WARN', true)
  reports(report, 'ERROR', true)
  out('ok: :checkhealth racelens with vim.lsp.enable')
  return client
end

local function test()
  vim.cmd('filetype on')
  local proj = harness.fake_project(dir)

  local report = health()
  if compat.has_lsp_enable then
    reports(report, "neither vim.lsp.enable('racelens') nor require('racelens').setup() has been called")
    reports(report, 'lsp/racelens.lua found on the runtimepath')
  else
    reports(report, "require('racelens').setup() has not been called")
    reports(report, 'vim.lsp.enable needs Neovim 0.11 or newer: this version uses setup()')
  end
  reports(report, 'server command `racelens lsp`: no `racelens` on PATH and $CARGO_HOME/bin (' .. vim.env.CARGO_HOME .. '/bin)')
  reports(report, 'cargo install --locked --path server/cli')
  out('ok: :checkhealth racelens before anything is configured')

  local enabled_client
  if compat.has_lsp_enable then
    enabled_client = enabled(proj)
  else
    out(string.format('(Neovim %d.%d: no vim.lsp.enable, setup() only)', vim.version().major, vim.version().minor))
  end

  require('racelens').setup({ cmd = server })
  report = health()
  reports(report, "configured with require('racelens').setup()")
  reports(report, 'server command `' .. table.concat(server, ' ') .. '`: ')
  if enabled_client then
    reports(report, "both vim.lsp.enable('racelens') and setup() are in use")
  else
    reports(report, 'WARN', true)
    vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/Pool.java'))
    local client = wait_client(vim.api.nvim_get_current_buf())
    reports(health(), 'client ' .. client.id .. '  root ' .. proj .. '  running')
  end
  out('ok: :checkhealth racelens with setup()')
end

harness.run('nvim health', test, function()
  out('messages: ' .. vim.inspect(notes))
end)
