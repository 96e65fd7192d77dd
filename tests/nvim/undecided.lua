-- End-to-end test of the selection status when the analysis cannot decide whether changed
-- state is shared, in headless Neovim against the real server: on the undecided-hash
-- fixture (a hash cached step by step in a field; the test hashes the key in two threads,
-- but the key reaches the other thread as an element of an Object[]) the statusline text is
-- `racelens: no evidence`, never a silent "0 tests", and :RacelensSelected says why.
-- Run by tests/nvim/run.sh, which sets RACELENS_E2E_UNDECIDED_PROJECT and the variables of
-- e2e.lua.

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, check = harness.out, harness.check
local project, bin, notes = harness.e2e_setup('RACELENS_E2E_UNDECIDED_PROJECT')

local function test()
  harness.out_setup(bin, project)
  vim.cmd('filetype on')
  vim.cmd('cd ' .. vim.fn.fnameescape(project))
  local racelens = require('racelens')
  racelens.setup({ cmd = { bin, 'lsp' }, settings = { base = 'HEAD' } })

  vim.cmd('edit src/main/java/org/x/cache/Key.java')
  local key = vim.api.nvim_get_current_buf()
  harness.wait_attached(key, 'Key.java')
  check(vim.wait(30000, function()
    return racelens.status(key) == 'racelens: no evidence'
  end, 50), 'no "no evidence" status; status(): ' .. vim.inspect(racelens.status(key)))
  out('ok: ' .. racelens.status(key))

  vim.cmd('RacelensSelected')
  check(harness.noted(notes, 'racelens: the change selects no test: no evidence either way (`Key.hash` in `Key.hash` is not known to be shared'),
    ':RacelensSelected said: ' .. vim.inspect(notes))
  out('ok: :RacelensSelected says there is no evidence either way, and which state')
end

harness.run('nvim undecided', test, harness.e2e_report(notes))
