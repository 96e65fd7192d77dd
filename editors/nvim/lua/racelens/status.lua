-- How many tests the working-tree change selects, per racelens client, from the server's
-- `racelens/selectionStatus` notification (sent because the client announces
-- `experimental.racelens.selectionStatus`). `require('racelens').status()` gives the text
-- for a statusline; `:RacelensSelected!` offers the selected tests, best first, and explores
-- the one picked, as its lens would (`:RacelensSelected` puts them in the quickfix list:
-- lists.lua).
local covers = require('racelens.lists').covers

local M = {}

local by_client = {}

local function plural(n, what)
  return string.format('%d %s%s', n, what, n == 1 and '' or 's')
end

--- The handler of `racelens/selectionStatus`.
---@param status racelens.SelectionStatus
function M.on_status(_, status, ctx)
  if type(status) == 'table' and ctx and ctx.client_id then
    by_client[ctx.client_id] = status
  end
end

--- Forgets a stopped client's status.
function M.forget(client_id)
  by_client[client_id] = nil
end

--- The status a client last sent, or nil.
function M.get(client_id)
  return client_id and by_client[client_id]
end

local function undecided(status)
  return type(status.undecided) == 'table' and status.undecided or {}
end

--- `racelens: 2 tests for this change`, `racelens: no impacted pair`, or `racelens: no
--- evidence` when nothing is selected but tests that start threads run changed state whose
--- sharing the analysis could not decide; '' before the server has said anything.
function M.text(status)
  if type(status) ~= 'table' then
    return ''
  end
  local selected = status.selected or 0
  if selected == 0 and #undecided(status) > 0 then
    return 'racelens: no evidence'
  end
  if selected == 0 and (status.impactedPairs or 0) == 0 and (status.warnedMethods or 0) == 0 then
    return 'racelens: no impacted pair'
  end
  return 'racelens: ' .. plural(selected, 'test') .. ' for this change'
end

--- One line per selected test: `#1 pkg.PoolTest#borrow: covers 2 impacted pairs (static)`,
--- then the state not known to be shared.
function M.lines(status)
  local out = {}
  if type(status) ~= 'table' then
    return out
  end
  for _, t in ipairs(status.tests or {}) do
    table.insert(out, string.format('#%d %s: covers %s (%s)', t.rank, t.test, covers(t), t.evidence))
  end
  if (status.selected or 0) > #(status.tests or {}) then
    table.insert(out, string.format('... and %d more', status.selected - #(status.tests or {})))
  end
  for _, u in ipairs(undecided(status)) do
    table.insert(out, 'not known to be shared: ' .. u)
  end
  return out
end

--- Offers the selected tests (vim.ui.select); `explore(test)` runs the one picked.
function M.pick(status, explore)
  local tests = type(status) == 'table' and status.tests or {}
  if #tests == 0 then
    local why = #undecided(status or {}) > 0 and ': no evidence either way (' .. undecided(status)[1] .. ')' or ''
    vim.notify('racelens: the change selects no test' .. why, vim.log.levels.INFO)
    return
  end
  vim.ui.select(tests, {
    prompt = 'Explore the schedules of a test the change selects:',
    format_item = function(t)
      return string.format('#%d %s (covers %s)', t.rank, t.test, covers(t))
    end,
  }, function(t)
    if t then
      explore(t)
    end
  end)
end

return M
