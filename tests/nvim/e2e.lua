-- End-to-end test of the Neovim plugin against the real server, headless.
-- Run by tests/nvim/run.sh, which makes the git repository (object-pool fixture: base
-- committed, change applied) and sets:
--   RACELENS_E2E_PROJECT  the repository
--   RACELENS_BIN          the racelens binary
--   RACELENS_NVIM_RTP     editors/nvim (put on the runtimepath here)
-- Prints `ok: ...` lines; on failure prints what it saw and exits with `cquit 1`.

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, fail, check = harness.out, harness.fail, harness.check

local diag_code, describe_diagnostics = harness.diag_code, harness.describe_diagnostics
local project, bin, notes = harness.e2e_setup('RACELENS_E2E_PROJECT')

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

local wait_attached = harness.wait_attached
local EXPLORE_PREFIX = '▶ Explore schedules'

local function test()
  harness.out_setup(bin, project)
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

  -- 1b. :RacelensRelated: the warning and its related locations (the other end of the
  -- pair) in the window's location list.
  vim.api.nvim_win_set_cursor(0, { 58, 0 })
  vim.cmd('RacelensRelated')
  local loc = vim.fn.getloclist(0, { title = 1, items = 1 })
  local others = vim.tbl_filter(function(item)
    return item.valid == 1 and item.bufnr == pool and item.lnum ~= 58 and item.text ~= ''
  end, loc.items)
  check(#loc.items >= 2 and loc.items[1].lnum == 58 and loc.items[1].text:find('^RL001 ') and #others >= 1
    and loc.title:find('^racelens: RL001 '), ':RacelensRelated put in the location list: ' .. vim.inspect(loc))
  vim.cmd('lclose')
  out(string.format('ok: :RacelensRelated -> %d locations, e.g. line %d: %s', #loc.items, others[1].lnum, others[1].text))

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
  local lens = harness.wait_lens(test_buf, EXPLORE_PREFIX, 30000, 'racelens.exploreTest')
  out(string.format('ok: code lens on line %d: %s', lens.range.start.line, lens.command.title))

  -- 3b. The selection status (statusline text); :RacelensSelected puts the test in the
  -- quickfix list at its declaration, :RacelensSelected! offers it to explore.
  local racelens = require('racelens')
  check(vim.wait(15000, function()
    return racelens.status(test_buf) == 'racelens: 1 test for this change'
  end, 50), 'no selection status for the change; status(): ' .. vim.inspect(racelens.status(test_buf)))
  local declared = vim.fn.search('void addWhileBorrowingKeepsCountsConsistent(', 'nw')
  vim.cmd('RacelensSelected')
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  check(qf.title == 'racelens: 1 test for this change' and #qf.items == 1 and qf.items[1].valid == 1
    and qf.items[1].bufnr == test_buf and qf.items[1].lnum == declared
    and qf.items[1].text:find('#1 org.example.pool.ObjectPoolTest#addWhileBorrowingKeepsCountsConsistent: covers ', 1, true),
    ':RacelensSelected put in the quickfix list: ' .. vim.inspect(qf) .. ' (declaration on line ' .. declared .. ')')
  vim.cmd('cclose')
  out(string.format('ok: %s; :RacelensSelected -> quickfix line %d: %s', racelens.status(test_buf), qf.items[1].lnum, qf.items[1].text))
  local offered
  local real_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    on_choice(nil)
  end
  vim.cmd('RacelensSelected!')
  vim.ui.select = real_select
  check(offered and #offered == 1 and offered[1]:find('#1 org.example.pool.ObjectPoolTest#addWhileBorrowingKeepsCountsConsistent', 1, true),
    ':RacelensSelected! offered: ' .. vim.inspect(offered))
  out('ok: :RacelensSelected! offers ' .. offered[1])

  -- 4. Running the lens sends workspace/executeCommand to the server, which queues an
  -- exploration (tests/nvim/explore.lua follows one to its end): cancelled here.
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
  check(vim.wait(15000, function()
    return answer ~= nil
  end, 50), 'no answer to workspace/executeCommand within 15 s')
  local test_name = arg.class .. '#' .. arg.method
  check(answer.err == nil and type(answer.result) == 'table' and answer.result.queued == true
    and answer.result.test == test_name, 'executeCommand answered ' .. vim.inspect(answer))
  -- The server began the exploration's progress before it answered.
  local function exploration()
    return harness.exploration('racelens: exploring ' .. test_name)
  end
  check(vim.wait(5000, function()
    return exploration() ~= nil
  end, 20), 'no progress of the exploration: ' .. vim.inspect(require('racelens').explorations()))
  harness.cancel_exploration(exploration, notes)
  out('ok: the exploration it queued is cancelled by :RacelensCancel')

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

harness.run('nvim e2e', test, harness.e2e_report(notes))
