-- What the headless Neovim tests share (tests/nvim/client.lua, tests/nvim/e2e.lua):
-- output on stderr, failing with a message, and running the test to a PASS/FAIL exit.
-- Loaded with dofile() from the directory of the test script.
local H = {}

--- Prints a line on stderr (headless Neovim's stdout is not the terminal's).
function H.out(msg)
  io.stderr:write(msg .. '\n')
  io.stderr:flush()
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

--- Runs `test`. On success prints `PASS: <name>` and quits; on failure prints `FAIL: ...`
--- (the message of H.fail, or the error with its traceback), then what `report()` prints
--- (optional), then the LSP log's path, and exits with `cquit 1`.
function H.run(name, test, report)
  local ok, e = xpcall(test, function(err)
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
    H.out('LSP log: ' .. vim.lsp.get_log_path())
    vim.cmd('cquit 1')
  else
    H.out('PASS: ' .. name)
    vim.cmd('qall!')
  end
end

return H
