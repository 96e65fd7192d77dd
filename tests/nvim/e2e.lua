-- End-to-end test of the Neovim plugin against the real server, headless.
-- Run by tests/nvim/run.sh, which makes the git repository (object-pool fixture: base
-- committed, change applied) and sets:
--   RACELENS_E2E_PROJECT  the repository
--   RACELENS_BIN          the racelens binary
--   RACELENS_NVIM_RTP     editors/nvim (put on the runtimepath here)
-- Prints `ok: ...` lines; on failure prints what it saw and exits with `cquit 1`.

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, fail, check = harness.out, harness.fail, harness.check

local function env(name)
  local v = vim.env[name]
  check(v and v ~= '', 'environment variable ' .. name .. ' is not set (run tests/nvim/run.sh)')
  return v
end

local project = env('RACELENS_E2E_PROJECT')
local bin = env('RACELENS_BIN')
vim.opt.runtimepath:prepend(env('RACELENS_NVIM_RTP'))
-- The LSP log (every message, at `debug`) is what to read when the server misbehaves;
-- run.sh points Neovim's cache/state directories into its temporary folder.
vim.lsp.set_log_level(vim.env.RACELENS_E2E_LOG_LEVEL or 'debug')
local uv = vim.uv or vim.loop

-- Collect what the plugin and Neovim report (vim.notify and LSP messages).
local notes = {}
local orig_notify = vim.notify
vim.notify = function(msg, level, o)
  table.insert(notes, string.format('[notify %s] %s', tostring(level), tostring(msg)))
  return orig_notify(msg, level, o)
end

local function diag_code(d)
  if d.code ~= nil then
    return d.code
  end
  return d.user_data and d.user_data.lsp and d.user_data.lsp.code
end

local function describe_diagnostics(bufnr)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(lines, string.format('  line %d col %d [%s %s] %s', d.lnum, d.col, tostring(d.source),
      tostring(diag_code(d)), d.message))
  end
  return #lines > 0 and table.concat(lines, '\n') or '  (no diagnostics)'
end

local function hover_text(contents)
  if type(contents) == 'string' then
    return contents
  elseif type(contents) == 'table' then
    if contents.value then
      return tostring(contents.value)
    end
    local parts = {}
    for _, c in ipairs(contents) do
      table.insert(parts, hover_text(c))
    end
    return table.concat(parts, '\n')
  end
  return ''
end

local function wait_attached(bufnr, what)
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
  check(ok and not gone, 'no initialized racelens client attached to ' .. what
    .. (gone and ' (no racelens client is running: the server did not start or exited)' or ' within 20 s'))
  return require('racelens').client_for_buf(bufnr)
end

local function codelenses(bufnr)
  return require('racelens.compat').codelenses(bufnr)
end

local function describe_lenses(bufnr)
  local lines = {}
  for _, lens in ipairs(codelenses(bufnr)) do
    local c = lens.command or {}
    table.insert(lines, string.format('  line %d: %s [%s] %s', lens.range.start.line, tostring(c.title),
      tostring(c.command), vim.inspect(c.arguments, { newline = ' ', indent = '' })))
  end
  return #lines > 0 and table.concat(lines, '\n') or '  (no code lenses)'
end

local EXPLORE_PREFIX = '▶ Explore schedules'

local function find_explore_lens(bufnr)
  for _, lens in ipairs(codelenses(bufnr)) do
    local c = lens.command
    if c and c.command == 'racelens.exploreTest' and type(c.title) == 'string'
        and c.title:sub(1, #EXPLORE_PREFIX) == EXPLORE_PREFIX then
      return lens
    end
  end
  return nil
end

local function test()
  out('nvim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) .. '.'
    .. tostring(vim.version().patch) .. ', server ' .. bin .. ', project ' .. project)
  vim.cmd('filetype on')
  vim.o.hidden = true -- leave edited buffers for others, as most configurations do
  vim.cmd('cd ' .. vim.fn.fnameescape(project))

  require('racelens').setup({
    cmd = { bin, 'lsp' },
    settings = { base = 'HEAD', diagnostics = { hints = true } },
  })

  -- 1. Diagnostics: RL001 on `numActive` in addObject(), line 58 (57 zero-based).
  vim.cmd('edit src/main/java/org/example/pool/ObjectPool.java')
  local pool = vim.api.nvim_get_current_buf()
  check(vim.bo[pool].filetype == 'java', 'ObjectPool.java did not get filetype java')
  local client = wait_attached(pool, 'ObjectPool.java')
  out(string.format('ok: client %d started for root %s', client.id, tostring(client.config.root_dir)))
  check(vim.fn.resolve(client.config.root_dir) == vim.fn.resolve(project),
    'client root is ' .. tostring(client.config.root_dir) .. ', expected ' .. project)

  local function rl001()
    for _, d in ipairs(vim.diagnostic.get(pool)) do
      if d.source == 'racelens' and diag_code(d) == 'RL001' and d.lnum == 57
          and tostring(d.message):find('numActive', 1, true) then
        return d
      end
    end
    return nil
  end
  if not vim.wait(30000, function()
        return rl001() ~= nil
      end, 100) then
    fail('no RL001 diagnostic from racelens on line 57 mentioning numActive within 30 s; diagnostics seen:\n'
      .. describe_diagnostics(pool))
  end
  local d = rl001()
  out('ok: diagnostic ' .. diag_code(d) .. ' on line 57: ' .. d.message)

  -- 2. Hover on `numActive` in that line names the conflicting write in borrowObject().
  local line = vim.api.nvim_buf_get_lines(pool, 57, 58, false)[1]
  local s = line:find('numActive', 1, true)
  check(s, 'line 57 does not contain numActive: ' .. line)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(pool) },
    position = { line = 57, character = s - 1 + 2 }, -- inside the word (ASCII line)
  }
  local results, err = vim.lsp.buf_request_sync(pool, 'textDocument/hover', params, 10000)
  check(results, 'hover request failed: ' .. tostring(err))
  local text = ''
  for _, r in pairs(results) do
    if r.error or r.err then
      text = text .. '\n(error: ' .. vim.inspect(r.error or r.err) .. ')'
    elseif r.result then
      text = text .. hover_text(r.result.contents)
    end
  end
  check(text:find('borrowObject', 1, true), 'hover on numActive does not name borrowObject; hover text:\n' .. text)
  out('ok: hover names borrowObject (' .. #text .. ' characters)')

  -- 2b. Editing goes to the server (incremental didChange): putting `synchronized` back on
  -- addObject() clears the warning; undo brings it back.
  local decl = vim.api.nvim_buf_get_lines(pool, 56, 57, false)[1]
  local vcol = decl:find('void addObject', 1, true)
  check(vcol, 'line 56 is not the declaration of addObject(): ' .. decl)
  vim.api.nvim_buf_set_text(pool, 56, vcol - 1, 56, vcol - 1, { 'synchronized ' })
  check(vim.wait(15000, function()
    return rl001() == nil
  end, 50), 'RL001 still there 15 s after `synchronized` was put back on addObject(); diagnostics:\n'
    .. describe_diagnostics(pool))
  vim.cmd('silent undo')
  check(vim.api.nvim_buf_get_lines(pool, 56, 57, false)[1] == decl, 'undo did not restore line 56')
  check(vim.wait(15000, function()
    return rl001() ~= nil
  end, 50), 'RL001 did not come back within 15 s after undo; diagnostics:\n' .. describe_diagnostics(pool))
  out('ok: edits reach the server (RL001 gone with `synchronized`, back after undo)')

  -- 3. Code lens on the test: `▶ Explore schedules …`, command racelens.exploreTest.
  vim.cmd('edit src/test/java/org/example/pool/ObjectPoolTest.java')
  local test_buf = vim.api.nvim_get_current_buf()
  local test_client = wait_attached(test_buf, 'ObjectPoolTest.java')
  check(test_client.id == client.id, string.format(
    'ObjectPoolTest.java got client %d, ObjectPool.java client %d: expected one client per root',
    test_client.id, client.id))
  check(#require('racelens').clients() == 1, 'more than one racelens client is running')
  local deadline = uv.now() + 30000
  local lens
  while uv.now() < deadline do
    require('racelens').refresh_codelens(test_buf)
    if vim.wait(2000, function()
          return find_explore_lens(test_buf) ~= nil
        end, 50) then
      lens = find_explore_lens(test_buf)
      break
    end
  end
  check(lens, 'no code lens `' .. EXPLORE_PREFIX .. '…` with command racelens.exploreTest within 30 s; lenses seen:\n'
    .. describe_lenses(test_buf))
  out(string.format('ok: code lens on line %d: %s', lens.range.start.line, lens.command.title))

  -- 4. Running the lens sends workspace/executeCommand to the server (its answer is the
  -- server's business: printed, not checked).
  local sent, answer
  local rpc = client.rpc
  local orig_request = rpc.request
  rpc.request = function(method, p, callback, ...)
    if method == 'workspace/executeCommand' then
      sent = p
      local cb = callback
      callback = function(e, r)
        answer = { err = e, result = r }
        return cb(e, r)
      end
    end
    return orig_request(method, p, callback, ...)
  end
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  vim.cmd('RacelensRunLens')
  check(vim.wait(5000, function()
    return sent ~= nil
  end, 20), 'running the lens did not send workspace/executeCommand')
  rpc.request = orig_request
  check(sent.command == 'racelens.exploreTest', 'executeCommand sent command ' .. tostring(sent.command))
  local arg = sent.arguments and sent.arguments[1]
  check(type(arg) == 'table' and arg.method and arg.class and arg.uri,
    'executeCommand arguments lack uri/class/method: ' .. vim.inspect(sent.arguments))
  out(string.format('ok: lens ran as workspace/executeCommand %s %s#%s', sent.command, arg.class, arg.method))
  vim.wait(15000, function()
    return answer ~= nil
  end, 50)
  local said = 'none within 15 s'
  if answer and answer.err then
    said = 'error ' .. vim.inspect(answer.err, { newline = ' ', indent = '' })
  elseif answer then
    said = answer.result == nil and 'null' or vim.inspect(answer.result, { newline = ' ', indent = '' })
  end
  out('\n   (server answer to workspace/executeCommand: ' .. said .. ')')

  -- 5. The racelens:/codes/RL001 document.
  vim.cmd('edit racelens:/codes/RL001')
  local doc = vim.api.nvim_get_current_buf()
  local doc_text = table.concat(vim.api.nvim_buf_get_lines(doc, 0, -1, false), '\n')
  check(doc_text:find('RL001', 1, true), 'racelens:/codes/RL001 has no text mentioning RL001; buffer:\n' .. doc_text)
  check(vim.bo[doc].buftype == 'nofile' and not vim.bo[doc].modifiable,
    'racelens:/codes/RL001 is not a read-only nofile buffer')
  out(string.format('ok: racelens:/codes/RL001 (%d lines, filetype %s)', vim.api.nvim_buf_line_count(doc),
    vim.bo[doc].filetype))

  -- 6. :RacelensInfo names the client and its root.
  local info = table.concat(require('racelens').info(), '\n')
  check(info:find('client ' .. client.id, 1, true), ':RacelensInfo does not list client ' .. client.id .. ':\n' .. info)
  out('ok: :RacelensInfo')
end

harness.run('nvim e2e', test, function()
  if #notes > 0 then
    out('messages shown by Neovim:\n  ' .. table.concat(notes, '\n  '))
  end
  pcall(function()
    out('racelens clients:\n  ' .. table.concat(require('racelens').info(), '\n  '))
  end)
end)
