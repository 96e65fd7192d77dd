-- Which racelens the plugin runs when no `cmd` is configured, headless against the real
-- server on the object-pool fixture: with a PATH that has no racelens and an empty
-- CARGO_HOME, one error that says how to install it (and :checkhealth racelens says so),
-- and no client; then with a racelens in $CARGO_HOME/bin (a symlink to the built one),
-- :RacelensRestart starts the client with it and :checkhealth says where it was found;
-- without CARGO_HOME the plugin looks in ~/.cargo/bin.
-- RACELENS_E2E_WAY=enable does the same through vim.lsp.enable('racelens') (Neovim 0.11+),
-- else setup() without `cmd`. Run by tests/nvim/run.sh (env: RACELENS_E2E_PROJECT,
-- RACELENS_BIN, RACELENS_NVIM_RTP).

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, check = harness.out, harness.check
local project, bin, notes = harness.e2e_setup('RACELENS_E2E_PROJECT')
local uv = vim.uv or vim.loop

local POOL = 'src/main/java/org/example/pool/ObjectPool.java'
local enable = vim.env.RACELENS_E2E_WAY == 'enable'

local health = harness.health

local function reports(report, text)
  check(report:find(text, 1, true), ':checkhealth racelens does not say "' .. text .. '":\n' .. report)
end

local function test()
  out('nvim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor)
    .. (enable and ", vim.lsp.enable('racelens')" or ', setup()'))
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/path', 'p')
  vim.fn.mkdir(dir .. '/cargo', 'p')
  vim.env.PATH = dir .. '/path'
  vim.env.CARGO_HOME = dir .. '/cargo'
  check(vim.fn.exepath('racelens') == '', 'a racelens on the test PATH')

  vim.cmd('filetype on')
  vim.cmd('cd ' .. vim.fn.fnameescape(project))
  if enable then
    vim.lsp.enable('racelens')
  else
    require('racelens').setup()
  end
  vim.cmd('edit ' .. POOL)
  local pool = vim.api.nvim_get_current_buf()

  -- None anywhere: one error naming the places, the install command and the option.
  local missing = 'racelens: no `racelens` on PATH and $CARGO_HOME/bin (' .. dir .. '/cargo/bin).'
  check(vim.wait(5000, function()
    return harness.noted(notes, missing) ~= nil
  end, 50), 'no message about the missing racelens: ' .. vim.inspect(notes))
  local note = harness.noted(notes, missing)
  local option = enable and "vim.lsp.config('racelens', { cmd = { '/path/to/racelens', 'lsp' } })"
    or "require('racelens').setup({ cmd = { '/path/to/racelens', 'lsp' } })"
  check(note:find('[notify 4]', 1, true) and note:find('`cargo install --locked --path server/cli`', 1, true)
    and note:find(option, 1, true), 'the message: ' .. note)
  vim.cmd('edit ' .. vim.fn.fnameescape(project .. '/src/test/java/org/example/pool/ObjectPoolTest.java'))
  vim.wait(300)
  local said = 0
  for _, n in ipairs(notes) do
    said = said + (n:find(missing, 1, true) and 1 or 0)
  end
  check(said == 1 and #require('racelens').clients() == 0, 'said ' .. said .. ' times; clients: '
    .. #require('racelens').clients())
  local report = health()
  reports(report, 'server command `racelens lsp`: ' .. missing:sub(#'racelens: ' + 1, -2))
  reports(report, 'cargo install --locked --path server/cli')
  out('ok: no racelens: ' .. note:gsub('\n', ' '))

  -- `cargo install` put one in $CARGO_HOME/bin: :RacelensRestart starts the client with it.
  local installed = dir .. '/cargo/bin/racelens'
  vim.fn.mkdir(dir .. '/cargo/bin', 'p')
  check(uv.fs_symlink(bin, installed), 'cannot link ' .. installed)
  vim.cmd('buffer ' .. pool)
  vim.cmd('RacelensRestart')
  local client = harness.wait_attached(pool, POOL)
  check(client.config.cmd[1] == installed and client.config.cmd[2] == 'lsp', 'cmd: ' .. vim.inspect(client.config.cmd))
  local rl001 = harness.wait_diagnostic(pool, 'RL001', 60000, function(d)
    return harness.diag_code(d) == 'RL001'
  end)
  out('ok: started ' .. table.concat(client.config.cmd, ' ') .. ': RL001 on line ' .. rl001.lnum)
  local found = 'found in $CARGO_HOME/bin: ' .. installed .. ' (not on PATH)'
  reports(health(), 'server command `' .. installed .. ' lsp`: ' .. found)
  local info = require('racelens').info()[1]
  check(info:find(found, 1, true), ':RacelensInfo says ' .. info)
  out('ok: :checkhealth racelens and :RacelensInfo: ' .. found)

  -- Without CARGO_HOME, cargo's default: ~/.cargo/bin.
  vim.env.CARGO_HOME = nil
  vim.env.HOME = dir .. '/home'
  vim.fn.mkdir(dir .. '/home/.cargo/bin', 'p')
  check(uv.fs_symlink(bin, dir .. '/home/.cargo/bin/racelens'), 'cannot link in ~/.cargo/bin')
  local server = require('racelens.config').find_server()
  check(server and server.path == dir .. '/home/.cargo/bin/racelens' and server.from == '~/.cargo/bin',
    'without CARGO_HOME: ' .. vim.inspect(server))
  out('ok: without CARGO_HOME: ' .. server.path)
end

harness.run('nvim binary (' .. (enable and 'vim.lsp.enable' or 'setup') .. ')', test, harness.e2e_report(notes))
