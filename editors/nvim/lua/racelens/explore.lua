-- :RacelensExplore [heuristic] [seed]: explores the test at the cursor again with a
-- heuristic and a seed of the user's instead of the settings'. The test is the one whose
-- racelens lens is at or above the cursor line (the first of the buffer above them all).
-- Without a heuristic, vim.ui.select offers the list (and "the setting"), then vim.ui.input
-- asks for the seed. The server checks what is sent and refuses an unknown heuristic; its
-- error comes back through vim.notify (commands.execute_on_server).
local commands = require('racelens.commands')
local lenses = require('racelens.lenses')

local M = {}

--- The heuristics the server knows (server/explore/src/search/heuristics.rs and capp.rs),
--- in the order of the `explore.heuristic` setting (editors/README.md).
M.HEURISTICS = { 'basic', 'pair', 'pct', 'pct+LA', 'pos', 'random' }
for _, unit in ipairs({ 'C', 'CO', 'M', 'MO', 'L', 'LO', 'F' }) do
  table.insert(M.HEURISTICS, unit .. 'A')
  table.insert(M.HEURISTICS, unit .. 'S')
end

local SETTING = 'the setting (explore.heuristic)'

local notify = require('racelens.notify')

--- The argument of `racelens.exploreTest` for the test at (0-based) line `lnum` of `bufnr`,
--- from its lenses; nil when the buffer has none.
function M.test_at(bufnr, lnum)
  return lenses.nearest_above(bufnr, lnum, function(lens)
    return lenses.argument(lens, commands.EXPLORE, { 'class', 'method' })
  end)
end

--- Sends the exploration: the test's argument with `again`, the heuristic and the seed
--- (a seed that is not a number goes as typed, for the server to refuse).
local function send(bufnr, test, heuristic, seed)
  local arg = vim.deepcopy(test)
  arg.again = true
  arg.heuristic = heuristic
  if seed ~= nil and seed ~= '' then
    arg.seed = tonumber(seed) or seed
  end
  notify(string.format('exploring %s#%s again with %s%s', arg.class, arg.method,
    heuristic or 'the heuristic of the settings', arg.seed and (', seed ' .. tostring(arg.seed)) or ''))
  commands.execute_on_server({ command = commands.EXPLORE, arguments = { arg } }, { bufnr = bufnr })
end

--- :RacelensExplore [heuristic] [seed] (`args`: the words after the command).
function M.run(args)
  local bufnr = vim.api.nvim_get_current_buf()
  local test = M.test_at(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not test then
    notify('no test with a racelens lens in this buffer (wait for the ▶ Explore schedules lens)', vim.log.levels.WARN)
    return
  end
  local words = vim.split(vim.trim(args or ''), '%s+', { trimempty = true })
  if #words > 0 then
    send(bufnr, test, words[1], words[2])
    return
  end
  local items = vim.list_extend({ SETTING }, M.HEURISTICS)
  vim.ui.select(items, { prompt = 'racelens: explore ' .. test.method .. ' again with the heuristic' }, function(choice)
    if not choice then
      return
    end
    vim.ui.input({ prompt = 'racelens: seed (empty: none): ' }, function(seed)
      if seed == nil then
        return
      end
      send(bufnr, test, choice ~= SETTING and choice or nil, vim.trim(seed))
    end)
  end)
end

--- Completion: the heuristics, for the first argument.
function M.complete(arg_lead, cmd_line)
  local words = vim.split(cmd_line, '%s+', { trimempty = true })
  if #words > 2 or (#words == 2 and arg_lead == '') then
    return {}
  end
  local out = {}
  for _, h in ipairs(M.HEURISTICS) do
    if h:lower():sub(1, #arg_lead) == arg_lead:lower() then
      table.insert(out, h)
    end
  end
  return out
end

return M
