-- End-to-end test of the Neovim 0.11+ way in, against the real server, headless: no
-- setup(), only `vim.lsp.config('racelens', ...)` and `vim.lsp.enable('racelens')`, which
-- read editors/nvim/lsp/racelens.lua from the runtimepath. On the object-pool fixture:
-- the client attaches with the settings given, RL001 arrives, the test's
-- `▶ Explore schedules` lens appears, the selection status arrives (the experimental
-- capability), :RacelensRunLens starts the exploration on the server (its progress shows)
-- and :RacelensCancel ends it, and racelens:/codes/RL001 opens.
-- Run by tests/nvim/run.sh on Neovim 0.11+, with the variables of e2e.lua.

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, check = harness.out, harness.check
local project, bin, notes = harness.e2e_setup('RACELENS_E2E_PROJECT')

local function test()
  harness.out_setup(bin, project)
  check(vim.fn.has('nvim-0.11') == 1, 'vim.lsp.enable needs Neovim 0.11+')
  vim.cmd('filetype on')
  vim.o.hidden = true
  vim.cmd('cd ' .. vim.fn.fnameescape(project))

  vim.lsp.config('racelens', {
    cmd = { bin, 'lsp' },
    settings = { racelens = { base = 'HEAD', diagnostics = { hints = true } } },
  })
  vim.lsp.enable('racelens')

  vim.cmd('edit src/main/java/org/example/pool/ObjectPool.java')
  local pool = vim.api.nvim_get_current_buf()
  local client = harness.wait_attached(pool, 'ObjectPool.java')
  check(vim.fn.resolve(client.root_dir) == vim.fn.resolve(project), 'client root ' .. tostring(client.root_dir))
  check(not require('racelens')._options().configured, 'setup() ran')
  check(client.settings.racelens.base == 'HEAD', 'client settings: ' .. vim.inspect(client.settings))
  out(string.format('ok: vim.lsp.enable started client %d for %s', client.id, client.root_dir))

  local rl001 = harness.wait_diagnostic(pool, 'RL001 on line 57', 30000, function(d)
    return d.source == 'racelens' and harness.diag_code(d) == 'RL001' and d.lnum == 57
  end)
  out('ok: diagnostic RL001 on line 57: ' .. rl001.message)

  vim.cmd('edit src/test/java/org/example/pool/ObjectPoolTest.java')
  local test_buf = vim.api.nvim_get_current_buf()
  check(harness.wait_attached(test_buf, 'ObjectPoolTest.java').id == client.id, 'the test file got another client')
  local lens = harness.wait_lens(test_buf, '▶ Explore schedules', 30000, 'racelens.exploreTest')
  out(string.format('ok: code lens on line %d: %s', lens.range.start.line, lens.command.title))
  check(vim.wait(15000, function()
    return require('racelens').status(test_buf) == 'racelens: 1 test for this change'
  end, 50), 'no selection status; status(): ' .. vim.inspect(require('racelens').status(test_buf)))
  out('ok: ' .. require('racelens').status(test_buf))

  -- The lens runs on the server: the exploration's progress begins; :RacelensCancel ends it.
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  vim.cmd('RacelensRunLens')
  local function exploration()
    for _, e in ipairs(require('racelens').explorations()) do
      if e.title:find('racelens: exploring org.example.pool.ObjectPoolTest#', 1, true) == 1 then
        return e
      end
    end
    return nil
  end
  check(vim.wait(15000, function()
    return exploration() ~= nil
  end, 20), 'no progress of an exploration after :RacelensRunLens: ' .. vim.inspect(require('racelens').explorations()))
  out('ok: :RacelensRunLens -> ' .. exploration().title)
  harness.cancel_exploration(exploration, notes)
  out('ok: :RacelensCancel cancelled it')

  vim.cmd('edit racelens:/codes/RL001')
  local text = harness.buffer_text(0)
  check(text:find('RL001', 1, true) and vim.bo.buftype == 'nofile' and not vim.bo.modifiable,
    'racelens:/codes/RL001: ' .. text)
  out(string.format('ok: racelens:/codes/RL001 (%d lines)', vim.api.nvim_buf_line_count(0)))
end

harness.run('nvim enable', test, harness.e2e_report(notes))
