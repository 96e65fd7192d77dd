-- Tests of the plugin's client side against tests/nvim/fake_server.py (no racelens build
-- needed): settings, one client per root, code lens refresh on the server's
-- notification, a lens run as workspace/executeCommand, `racelens:` documents, the
-- workspace/codeLens/refresh request, restart, and a missing binary.
-- Run by tests/nvim/client.sh (env: RACELENS_NVIM_RTP, RACELENS_FAKE_SERVER, RACELENS_CLIENT_DIR).

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, check = harness.out, harness.check

vim.opt.runtimepath:prepend(vim.env.RACELENS_NVIM_RTP)
vim.lsp.set_log_level('debug')
local dir = vim.env.RACELENS_CLIENT_DIR
local server = { vim.env.RACELENS_PYTHON or 'python3', vim.env.RACELENS_FAKE_SERVER }

local notes = {}
local orig_notify = vim.notify
vim.notify = function(msg, level, o)
  table.insert(notes, tostring(msg))
  return orig_notify(msg, level, o)
end
local function noted(pattern)
  for _, n in ipairs(notes) do
    if n:find(pattern, 1, true) then
      return true
    end
  end
  return false
end

local function write(path, lines)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile(lines, path)
end

local racelens = require('racelens')
local compat = require('racelens.compat')

local client_of = racelens.client_for_buf

local function wait_client(bufnr)
  check(vim.wait(10000, function()
    local c = client_of(bufnr)
    return c and c.initialized
  end, 20), 'no initialized client for buffer ' .. bufnr)
  return client_of(bufnr)
end

local function seen(client)
  local r = compat.request_sync(client, 'fake/seen', vim.empty_dict(), 5000, 0)
  check(r and r.result, 'fake/seen failed')
  return r.result
end

local function test()
  vim.cmd('filetype on')
  local proj = dir .. '/proj'
  vim.fn.mkdir(proj .. '/.git', 'p')
  write(proj .. '/src/Pool.java', { 'class Pool {', '  int n;', '    numActive++;', '}' })
  write(proj .. '/src/PoolTest.java', { 'class PoolTest {', '  @Test', '  void testX() {}', '}' })
  write(proj .. '/sub/racelens.toml', { '' })
  write(proj .. '/sub/Other.java', { 'class Other {}' })

  -- A Java buffer open before setup gets a client at setup.
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/Pool.java'))
  local pool = vim.api.nvim_get_current_buf()
  local settings = { base = 'main', diagnostics = { hints = false }, java = { sourceRoots = { 'src' } } }
  local attached = {}
  racelens.setup({
    cmd = server,
    settings = settings,
    on_attach = function(client, bufnr)
      table.insert(attached, { client.id, bufnr })
    end,
  })
  local client = wait_client(pool)
  check(client.name == 'racelens', 'client name ' .. tostring(client.name))
  check(client.config.root_dir == proj, 'root ' .. tostring(client.config.root_dir) .. ', expected ' .. proj)
  check(#attached == 1 and attached[1][2] == pool, 'user on_attach not called once for the buffer')
  out('ok: started for an open buffer at setup, root by .git, on_attach called')

  -- Settings: initializationOptions and workspace/configuration section racelens.
  check(vim.wait(5000, function()
    return seen(client).configuration ~= vim.NIL and seen(client).configuration ~= nil
  end, 50), 'server got no workspace/configuration answer')
  local s = seen(client)
  check(vim.deep_equal(s.initializationOptions, settings), 'initializationOptions: ' .. vim.inspect(s.initializationOptions))
  check(vim.deep_equal(s.configuration, { settings }), 'configuration answer: ' .. vim.inspect(s.configuration))
  out('ok: settings sent as initializationOptions and served for workspace/configuration')

  -- Diagnostics arrive.
  check(vim.wait(5000, function()
    return #vim.diagnostic.get(pool) > 0
  end, 20), 'no diagnostics')

  -- Second file, same root: same client. A file under racelens.toml: another root.
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/PoolTest.java'))
  local test_buf = vim.api.nvim_get_current_buf()
  local c2 = wait_client(test_buf)
  check(c2.id == client.id, 'second buffer of the root got another client')
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/sub/Other.java'))
  local other = vim.api.nvim_get_current_buf()
  local c3 = wait_client(other)
  check(c3.id ~= client.id and c3.config.root_dir == proj .. '/sub', 'racelens.toml below .git: expected its own root')
  check(#racelens.clients() == 2, 'expected 2 clients, got ' .. #racelens.clients())
  -- Re-running setup and re-entering buffers does not duplicate clients.
  racelens.setup({ cmd = server, settings = settings })
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/PoolTest.java'))
  check(#racelens.clients() == 2, 'setup() twice duplicated clients: ' .. #racelens.clients())
  out('ok: one client per root (two roots, setup twice)')

  -- Code lenses: empty at first; the server's racelens/codeLensRefresh brings them, with no
  -- refresh from the test.
  check(vim.wait(5000, function()
    return #compat.codelenses(test_buf) > 0
  end, 20), 'no code lens after racelens/codeLensRefresh; lens requests: ' .. tostring(seen(client).codeLensRequests))
  local lens = compat.codelenses(test_buf)[1]
  check(lens.command.command == 'racelens.exploreTest', 'lens command ' .. tostring(lens.command.command))
  out('ok: code lenses refreshed on racelens/codeLensRefresh (' .. lens.command.title .. ')')

  -- Running the lens sends workspace/executeCommand with the command and its arguments.
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  vim.cmd('RacelensRunLens')
  check(vim.wait(5000, function()
    return #seen(client).executeCommand > 0
  end, 50), 'running the lens sent no workspace/executeCommand')
  local ex = seen(client).executeCommand[1]
  check(ex.command == 'racelens.exploreTest' and ex.arguments[1].method == 'testX'
    and ex.arguments[1].class == 'org.example.FooTest', 'executeCommand params: ' .. vim.inspect(ex))
  out('ok: :RacelensRunLens -> workspace/executeCommand ' .. vim.inspect(ex.arguments[1], { newline = ' ', indent = '' }))

  -- workspace/codeLens/refresh (a request) is answered with null, and refreshes.
  local before = seen(client).codeLensRequests
  compat.request_sync(client, 'fake/sendCodeLensRefresh', vim.empty_dict(), 5000, 0)
  check(vim.wait(5000, function()
    return #seen(client).refreshAnswers > 0
  end, 50), 'workspace/codeLens/refresh was not answered')
  local answer = seen(client).refreshAnswers[1]
  check(answer.error == nil, 'workspace/codeLens/refresh answered with an error: ' .. vim.inspect(answer))
  check(vim.wait(3000, function()
    return seen(client).codeLensRequests > before
  end, 50), 'workspace/codeLens/refresh did not re-request lenses')
  out('ok: workspace/codeLens/refresh answered (' .. vim.inspect(answer.result) .. ') and lenses re-requested')

  -- racelens: documents.
  vim.cmd('edit racelens:/codes/RL001')
  local doc = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(doc, 0, -1, false)
  check(lines[1] == '# racelens:/codes/RL001', 'document text: ' .. vim.inspect(lines))
  check(vim.bo[doc].filetype == 'markdown', 'filetype ' .. vim.bo[doc].filetype)
  check(vim.bo[doc].buftype == 'nofile' and not vim.bo[doc].modifiable, 'document buffer options')
  vim.cmd('edit racelens:///codes/RL002')
  lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  check(lines[1] == '# racelens:/codes/RL002', 'racelens:/// document text: ' .. vim.inspect(lines))
  out('ok: racelens: documents (read-only markdown)')

  -- :RacelensExplain opens the diagnostic's codeDescription document.
  vim.cmd('buffer ' .. pool)
  vim.api.nvim_win_set_cursor(0, { 3, 5 })
  vim.cmd('RacelensExplain')
  check(vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] == '# racelens:/codes/RL001', ':RacelensExplain')
  vim.cmd('close')
  out('ok: :RacelensExplain')

  -- set_settings: didChangeConfiguration and the new section served.
  local new = { base = 'origin/main' }
  racelens.set_settings(new)
  check(vim.wait(3000, function()
    return #seen(client).didChangeConfiguration > 0
  end, 50), 'no didChangeConfiguration')
  out('ok: set_settings sends workspace/didChangeConfiguration')

  -- :RacelensInfo
  local info = table.concat(racelens.info(), '\n')
  check(info:find(proj, 1, true) and info:find('client ' .. client.id, 1, true), 'info:\n' .. info)
  vim.cmd('RacelensInfo')
  out('ok: :RacelensInfo')

  -- :RacelensRestart: new clients, buffers attached again, still one per root.
  local old = client.id
  vim.cmd('RacelensRestart')
  local restarted = wait_client(pool)
  check(restarted.id ~= old, 'restart kept the old client')
  check(vim.lsp.get_client_by_id(old) == nil, 'old client still alive after restart')
  check(client_of(test_buf) and client_of(test_buf).id == restarted.id, 'test buffer not re-attached after restart')
  check(#racelens.clients() == 2, 'after restart: ' .. #racelens.clients() .. ' clients')
  s = seen(restarted)
  check(vim.deep_equal(s.initializationOptions, new), 'restart did not use the new settings: ' .. vim.inspect(s.initializationOptions))
  out('ok: :RacelensRestart')

  -- A missing binary: one clear message, no error, no client.
  for _, c in ipairs(racelens.clients()) do
    vim.lsp.stop_client(c.id, true)
  end
  vim.wait(3000, function()
    return #racelens.clients() == 0
  end, 20)
  notes = {}
  racelens.setup({ cmd = { dir .. '/no/such/racelens', 'lsp' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/Pool.java'))
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/PoolTest.java'))
  check(#racelens.clients() == 0, 'a client started with a missing binary')
  check(#notes == 1 and notes[1]:find('not an executable', 1, true) and notes[1]:find("cmd =", 1, true),
    'missing binary messages: ' .. vim.inspect(notes))
  out('ok: missing binary -> one message: ' .. notes[1]:gsub('\n', ' '))
end

harness.run('nvim client', test, function()
  out('messages: ' .. vim.inspect(notes))
end)
