-- Tests of the plugin's client side against tests/nvim/fake_server.py (no racelens build
-- needed): settings, one client per root, code lens refresh on the server's
-- notification, a lens run as workspace/executeCommand, `racelens:` documents, the
-- workspace/codeLens/refresh request, an exploration's progress and result lenses
-- (:RacelensRunLens by title or with vim.ui.select, Copy, schedule documents shown on
-- the server's request, :RacelensCancel), restart, a missing binary, and a server that
-- exits before it initializes.
-- Run by tests/nvim/client.sh (env: RACELENS_NVIM_RTP, RACELENS_FAKE_SERVER, RACELENS_CLIENT_DIR).

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, check = harness.out, harness.check

vim.opt.runtimepath:prepend(vim.env.RACELENS_NVIM_RTP)
harness.set_log_level('debug')
local dir = vim.env.RACELENS_CLIENT_DIR
local server = { vim.env.RACELENS_PYTHON or 'python3', vim.env.RACELENS_FAKE_SERVER }

local notes = harness.capture_notes()
local function noted(text)
  return harness.noted(notes, text) ~= nil
end

local write = harness.write

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

local seen = harness.fake_seen

--- The windows of the current tab page that show `bufnr`.
local function windows_showing(bufnr)
  local n = 0
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == bufnr then
      n = n + 1
    end
  end
  return n
end

local buffer_text = harness.buffer_text

local function lens_titles(bufnr)
  local titles = {}
  for _, lens in ipairs(compat.codelenses(bufnr)) do
    table.insert(titles, lens.command.title)
  end
  return titles
end

--- The exploration started by the `▶` lens earlier: its progress, the failure's lenses,
--- what they run, and the documents the server asks to show. The fake server's progress
--- stays at its report until `fake/finishExploration`.
local function explorations(client, test_buf)
  local function exploration()
    return racelens.explorations()[1]
  end
  check(vim.wait(5000, function()
    return exploration() and exploration().message == '12 schedules · preemption bound 1 · 340/s'
  end, 20), 'no exploration progress: ' .. vim.inspect(racelens.explorations()))
  local e = exploration()
  check(e.token == 'racelens/explore/1' and e.title == 'racelens: exploring org.example.FooTest#testX' and not e.done,
    'exploration: ' .. vim.inspect(e))
  check(#seen(client).progressCreated == 1 and seen(client).progressCreated[1].error == nil,
    'window/workDoneProgress/create not answered: ' .. vim.inspect(seen(client).progressCreated))
  local info = table.concat(racelens.info(), '\n')
  check(info:find('racelens: exploring org.example.FooTest#testX: 12 schedules', 1, true), ':RacelensInfo does not list the exploration:\n' .. info)
  out('ok: exploration progress (' .. e.message .. '), listed by :RacelensInfo')

  -- The end, and the failure's lenses with the refresh.
  compat.request_sync(client, 'fake/finishExploration', vim.empty_dict(), 5000, 0)
  check(vim.wait(5000, function()
    return exploration().done
  end, 20), 'no end of the exploration: ' .. vim.inspect(exploration()))
  check(exploration().message == '✗ AssertionError after 12 schedules', 'end: ' .. vim.inspect(exploration()))
  check(not table.concat(racelens.info(), '\n'):find('exploring org', 1, true), 'still listed as running')
  vim.cmd('buffer ' .. test_buf)
  check(vim.wait(5000, function()
    return #compat.codelenses(test_buf) == 5
  end, 20), 'no failure lenses: ' .. vim.inspect(lens_titles(test_buf)))
  local line = compat.codelenses(test_buf)[1].range.start.line
  vim.api.nvim_win_set_cursor(0, { line + 1, 0 })
  out('ok: end of the exploration; lenses ' .. table.concat(lens_titles(test_buf), ' | '))

  local completed = vim.fn.getcompletion('RacelensRunLens sh', 'cmdline')
  check(vim.deep_equal(completed, { 'Show schedule' }), ':RacelensRunLens completes ' .. vim.inspect(completed))

  -- :RacelensRunLens Copy: the client's own command, to the unnamed register.
  vim.cmd('RacelensRunLens Copy')
  local replay = 'racelens replay /proj --test org.example.FooTest#testX --schedule v1_0r2,2r10'
  check(vim.fn.getreg('"') == replay, 'register ": ' .. vim.fn.getreg('"'))
  check(noted('copied to register ": ' .. replay), 'no message about the copy: ' .. vim.inspect(notes))
  check(#seen(client).executeCommand == 1, 'Copy went to the server')
  out('ok: :RacelensRunLens Copy -> register "')

  -- :RacelensRunLens with several lenses asks with vim.ui.select; Show schedule opens the
  -- document the server asks to show (racelens/showDocument) in one scratch window, even
  -- though the command's answer names it too.
  local documents = require('racelens.documents')
  local shows, orig_show = 0, documents.show
  documents.show = function(...)
    shows = shows + 1
    return orig_show(...)
  end
  local offered
  local orig_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    for _, item in ipairs(items) do
      table.insert(offered, opts.format_item(item))
    end
    on_choice(items[3])
  end
  vim.cmd('RacelensRunLens')
  vim.ui.select = orig_select
  check(vim.deep_equal(offered, lens_titles(test_buf)), 'vim.ui.select offered ' .. vim.inspect(offered))
  -- Asked twice: by the notification and by the command's answer.
  check(vim.wait(5000, function()
    return shows == 2
  end, 20), 'racelens:/schedule/1 was asked to be shown ' .. shows .. ' times')
  documents.show = orig_show
  local schedule = documents.buffer_for('racelens:/schedule/1')
  check(schedule and vim.api.nvim_buf_is_loaded(schedule), 'no buffer for racelens:/schedule/1')
  check(buffer_text(schedule):find('# racelens:/schedule/1', 1, true) == 1, 'schedule text: ' .. buffer_text(schedule))
  check(vim.bo[schedule].filetype == 'markdown' and vim.bo[schedule].buftype == 'nofile'
    and not vim.bo[schedule].modifiable, 'the schedule buffer is not a read-only markdown scratch buffer')
  check(windows_showing(schedule) == 1 and vim.api.nvim_get_current_buf() == schedule,
    'the schedule is in ' .. windows_showing(schedule) .. ' windows')
  out('ok: :RacelensRunLens -> vim.ui.select -> Show schedule -> racelens:/schedule/1 in one read-only window')
  vim.cmd('only')
  vim.cmd('buffer ' .. test_buf)
  vim.api.nvim_win_set_cursor(0, { line + 1, 0 })

  -- A title in any case, or its beginning, picks the lens; the server's messages come
  -- through vim.notify.
  vim.cmd('RacelensRunLens replay')
  check(vim.wait(5000, function()
    return noted('racelens: replay of org.example.FooTest#testX: still fails')
  end, 20), 'no replay message: ' .. vim.inspect(notes))
  local ex = seen(client).executeCommand[3]
  check(ex.command == 'racelens.replay' and ex.arguments[1].schedule == 'v1_0r2,2r10', 'replay params: ' .. vim.inspect(ex))
  vim.cmd('RacelensRunLens nothing like it')
  check(noted('no code lens "nothing like it" on this line (there are: ▶ Explore'), 'no message for an unknown title')
  out('ok: :RacelensRunLens replay; an unknown title is named')

  -- window/showDocument of a racelens: URI (Neovim 0.8+ advertise it): shown, answered.
  compat.request_sync(client, 'fake/sendShowDocument', { uri = 'racelens:/codes/RL003', takeFocus = true }, 5000, 0)
  check(vim.wait(5000, function()
    return #seen(client).showDocumentAnswers > 0
  end, 20), 'window/showDocument not answered')
  local answer = seen(client).showDocumentAnswers[1]
  check(answer.result and answer.result.success == true, 'window/showDocument answer: ' .. vim.inspect(answer))
  check(buffer_text(0):find('# racelens:/codes/RL003', 1, true) == 1, 'window/showDocument showed: ' .. buffer_text(0))
  vim.cmd('only')
  out('ok: window/showDocument of racelens:/codes/RL003')

  -- :RacelensCancel asks every server; nothing runs any more.
  vim.cmd('RacelensCancel')
  check(vim.wait(5000, function()
    return noted('racelens: no exploration was running or queued')
  end, 20), 'no answer to :RacelensCancel: ' .. vim.inspect(notes))
  local cancels = 0
  for _, c in ipairs(seen(client).executeCommand) do
    cancels = cancels + (c.command == 'racelens.cancel' and #(c.arguments or {}) == 0 and 1 or 0)
  end
  check(cancels == 1, 'racelens.cancel without arguments sent ' .. cancels .. ' times to the client')
  out('ok: :RacelensCancel')
end

local function test()
  vim.cmd('filetype on')
  local proj = harness.fake_project(dir)
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

  explorations(client, test_buf)

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
  harness.clear_notes(notes)
  racelens.setup({ cmd = { dir .. '/no/such/racelens', 'lsp' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/Pool.java'))
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/src/PoolTest.java'))
  check(#racelens.clients() == 0, 'a client started with a missing binary')
  vim.wait(1000, function()
    return #notes > 0
  end, 20)
  vim.wait(200)
  check(#notes == 1 and notes[1]:find('not an executable', 1, true) and notes[1]:find("cmd =", 1, true),
    'missing binary messages: ' .. vim.inspect(notes))
  out('ok: missing binary -> one message: ' .. notes[1]:gsub('\n', ' '))

  -- A server that exits before it initializes: the plugin says so, with the command.
  harness.clear_notes(notes)
  racelens.setup({ cmd = { 'sh', '-c', 'exit 3' } })
  vim.cmd('edit')
  check(vim.wait(5000, function()
    return harness.noted(notes, 'racelens: `sh -c exit 3` exited (code 3, signal 0) before it initialized') ~= nil
  end, 20), 'no message about the server that exited: ' .. vim.inspect(notes))
  check(vim.wait(3000, function()
    return #racelens.clients() == 0
  end, 20), 'a client is left: ' .. table.concat(racelens.info(), '\n'))
  out('ok: a server that exits at once -> ' .. harness.noted(notes, 'exited (code 3'):gsub('\n', ' '))
end

harness.run('nvim client', test, function()
  out('messages: ' .. vim.inspect(notes))
end)
