-- What the headless Neovim tests share (tests/nvim/client.lua, e2e.lua, explore.lua):
-- output on stderr, failing with a message, and running the test to a PASS/FAIL exit;
-- and for the end-to-end tests against the real server, waiting for the client, its
-- lenses and diagnostics, and what the plugin said (vim.notify).
-- Loaded with dofile() from the directory of the test script.
local H = {}

local uv = vim.uv or vim.loop

--- Every vim.deprecate() call while the test runs (Neovim warns about the hard deprecated
--- ones; the soft ones become warnings in a later version): H.run fails on any.
local deprecations = {}
local orig_deprecate = vim.deprecate
vim.deprecate = function(name, alternative, ...)
  table.insert(deprecations, string.format('%s (use %s)\n%s', tostring(name), tostring(alternative),
    debug.traceback('', 2)))
  return orig_deprecate(name, alternative, ...)
end

--- Sets the LSP log level (`vim.lsp.set_log_level` is deprecated from 0.12 on).
function H.set_log_level(level)
  if vim.fn.has('nvim-0.11') == 1 then
    vim.lsp.log.set_level(level)
  else
    vim.lsp.set_log_level(level)
  end
end

--- Prints a line on stderr (headless Neovim's stdout is not the terminal's).
function H.out(msg)
  io.stderr:write(msg .. '\n')
  io.stderr:flush()
end

--- Says which Neovim, server and project an end-to-end test runs with.
function H.out_setup(bin, project)
  local v = vim.version()
  H.out(string.format('nvim %d.%d.%d, server %s, project %s', v.major, v.minor, v.patch, bin, project))
end

--- Fails the test with `msg` (printed as is, without a traceback).
function H.fail(msg)
  error({ racelens_test = msg }, 0)
end

function H.check(cond, msg)
  if not cond then
    H.fail(msg)
  end
end

--- The value of an environment variable that run.sh sets.
function H.env(name)
  local v = vim.env[name]
  H.check(v and v ~= '', 'environment variable ' .. name .. ' is not set (run tests/nvim/run.sh)')
  return v
end

--- What an end-to-end test starts with (run.sh sets the variables): the plugin on the
--- runtimepath, every LSP message in the LSP log (the thing to read when the server
--- misbehaves; run.sh puts it in its temporary folder), and vim.notify recorded. Returns
--- the project (the repository in the variable `project_variable`), the racelens binary
--- and the notes (see capture_notes).
function H.e2e_setup(project_variable)
  local project, bin = H.env(project_variable), H.env('RACELENS_BIN')
  vim.opt.runtimepath:prepend(H.env('RACELENS_NVIM_RTP'))
  H.set_log_level(vim.env.RACELENS_E2E_LOG_LEVEL or 'debug')
  return project, bin, H.capture_notes()
end

--- Records every vim.notify (and still shows it); returns the list, appended to as they come.
function H.capture_notes()
  local notes = {}
  local orig_notify = vim.notify
  vim.notify = function(msg, level, o)
    table.insert(notes, string.format('[notify %s] %s', tostring(level), tostring(msg)))
    return orig_notify(msg, level, o)
  end
  return notes
end

--- Forgets the notes taken so far.
function H.clear_notes(notes)
  for i = #notes, 1, -1 do
    notes[i] = nil
  end
end

--- The first note that contains `text`, if any.
function H.noted(notes, text)
  for _, note in ipairs(notes) do
    if note:find(text, 1, true) then
      return note
    end
  end
  return nil
end

function H.diag_code(d)
  if d.code ~= nil then
    return d.code
  end
  return d.user_data and d.user_data.lsp and d.user_data.lsp.code
end

function H.describe_diagnostics(bufnr)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(lines, string.format('  line %d col %d [%s %s] %s', d.lnum, d.col, tostring(d.source),
      tostring(H.diag_code(d)), d.message))
  end
  return #lines > 0 and table.concat(lines, '\n') or '  (no diagnostics)'
end

function H.write(path, lines)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile(lines, path)
end

--- A project for tests/nvim/fake_server.py in `dir`/proj, a root by its `.git` folder:
--- src/Pool.java (it gets a diagnostic) and src/PoolTest.java (it gets a lens). Returns it.
function H.fake_project(dir)
  local proj = dir .. '/proj'
  vim.fn.mkdir(proj .. '/.git', 'p')
  H.write(proj .. '/src/Pool.java', { 'class Pool {', '  int n;', '    numActive++;', '}' })
  H.write(proj .. '/src/PoolTest.java', { 'class PoolTest {', '  @Test', '  void testX() {}', '}' })
  return proj
end

--- What tests/nvim/fake_server.py has seen (its request `fake/seen`).
function H.fake_seen(client)
  local r = require('racelens.compat').request_sync(client, 'fake/seen', vim.empty_dict(), 5000, 0)
  H.check(r and r.result, 'fake/seen failed')
  return r.result
end

--- Waits up to `ms` for a diagnostic of `bufnr` for which `pred(d)` holds; returns it.
function H.wait_diagnostic(bufnr, what, ms, pred)
  local function find()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if pred(d) then
        return d
      end
    end
    return nil
  end
  H.check(vim.wait(ms, function()
    return find() ~= nil
  end, 50), string.format('no %s within %d s; diagnostics:\n%s', what, ms / 1000, H.describe_diagnostics(bufnr)))
  return find()
end

--- :RacelensCancel, then waits for the exploration (`exploration()` returns it, as
--- H.exploration does) to end as cancelled, and for the plugin to say so.
function H.cancel_exploration(exploration, notes)
  vim.cmd('RacelensCancel')
  H.check(vim.wait(60000, function()
    return exploration().done
  end, 50), 'the exploration did not end within 60 s of :RacelensCancel: ' .. vim.inspect(exploration()))
  H.check(exploration().message == 'cancelled', 'the exploration ended with: ' .. tostring(exploration().message))
  H.check(H.noted(notes, 'racelens: cancelled 1 exploration'), ':RacelensCancel said nothing: ' .. vim.inspect(notes))
end

--- Waits for an initialized racelens client attached to `bufnr`; returns it.
function H.wait_attached(bufnr, what)
  local t0 = uv.now()
  local gone = false
  local ok = vim.wait(20000, function()
    local c = require('racelens').client_for_buf(bufnr)
    if c ~= nil and c.initialized == true then
      return true
    end
    -- the server exited (or never started): no use waiting
    gone = #require('racelens').clients() == 0 and uv.now() - t0 > 1000
    return gone
  end, 50)
  H.check(ok and not gone, 'no initialized racelens client attached to ' .. what
    .. (gone and ' (no racelens client is running: the server did not start or exited)' or ' within 20 s'))
  return require('racelens').client_for_buf(bufnr)
end

function H.buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
end

--- The exploration whose progress has this title, as the plugin lists them.
--- The report of :checkhealth racelens, as its buffer shows it (the window closed after).
function H.health()
  vim.cmd('checkhealth racelens')
  local text = H.buffer_text(0)
  vim.cmd('bwipeout!')
  return text
end

function H.exploration(title)
  for _, e in ipairs(require('racelens').explorations()) do
    if e.title == title then
      return e
    end
  end
  return nil
end

function H.codelenses(bufnr)
  return require('racelens.compat').codelenses(bufnr)
end

function H.describe_lenses(bufnr)
  local lines = {}
  for _, lens in ipairs(H.codelenses(bufnr)) do
    local c = lens.command or {}
    table.insert(lines, string.format('  line %d: %s [%s] %s', lens.range.start.line, tostring(c.title),
      tostring(c.command), vim.inspect(c.arguments, { newline = ' ', indent = '' })))
  end
  return #lines > 0 and table.concat(lines, '\n') or '  (no code lenses)'
end

--- Waits up to `ms` for a lens of `bufnr` whose title starts with `prefix` (and whose
--- command is `command`, when given), asking for the lenses again every 2 s besides the
--- server's refreshes (the first ones only come once the workspace is indexed).
function H.wait_lens(bufnr, prefix, ms, command)
  local function find()
    for _, lens in ipairs(H.codelenses(bufnr)) do
      local c = lens.command
      if c and type(c.title) == 'string' and c.title:sub(1, #prefix) == prefix
          and (command == nil or c.command == command) then
        return lens
      end
    end
    return nil
  end
  local deadline = uv.now() + ms
  while uv.now() < deadline do
    require('racelens').refresh_codelens(bufnr)
    if vim.wait(math.min(2000, math.max(deadline - uv.now(), 1)), function()
          return find() ~= nil
        end, 50) then
      return find()
    end
  end
  H.fail(string.format('no code lens `%s…`%s within %d s; lenses seen:\n%s', prefix,
    command and (' with command ' .. command) or '', ms / 1000, H.describe_lenses(bufnr)))
end

--- What an end-to-end test prints on failure: the notes, and the racelens clients.
function H.e2e_report(notes)
  return function()
    if #notes > 0 then
      H.out('messages shown by Neovim:\n  ' .. table.concat(notes, '\n  '))
    end
    pcall(function()
      H.out('racelens clients:\n  ' .. table.concat(require('racelens').info(), '\n  '))
    end)
  end
end

--- Runs `test`. On success prints `PASS: <name>` and quits; on failure prints `FAIL: ...`
--- (the message of H.fail, or the error with its traceback), then what `report()` prints
--- (optional), then the LSP log's path, and exits with `cquit 1`. A test that called
--- something deprecated fails.
function H.run(name, test, report)
  local ok, e = xpcall(function()
    test()
    H.check(#deprecations == 0, 'deprecated functions called:\n' .. table.concat(deprecations, '\n'))
  end, function(err)
    if type(err) == 'table' and err.racelens_test then
      return err.racelens_test
    end
    return debug.traceback(tostring(err), 2)
  end)
  if not ok then
    H.out('FAIL: ' .. tostring(e))
    if report then
      report()
    end
    H.out('LSP log: ' .. require('racelens.compat').log_path())
    vim.cmd('cquit 1')
  else
    H.out('PASS: ' .. name)
    vim.cmd('qall!')
  end
end

return H
