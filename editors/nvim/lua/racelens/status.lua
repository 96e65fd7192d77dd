-- How many tests the working-tree change selects, per racelens client, from the server's
-- `racelens/selectionStatus` notification (sent because the client announces
-- `experimental.racelens.selectionStatus`). `require('racelens').status()` gives the text
-- for a statusline; `:RacelensSelected` lists the selected tests, best first, and explores
-- the one picked, as its lens would.
local M = {}

local by_client = {}

local function plural(n, what)
  return string.format('%d %s%s', n, what, n == 1 and '' or 's')
end

--- The handler of `racelens/selectionStatus`.
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

--- `racelens: 2 tests for this change` (or `racelens: no impacted pair`), or '' before the
--- server has said anything.
function M.text(status)
  if type(status) ~= 'table' then
    return ''
  end
  if (status.impacted_pairs or 0) == 0 then
    return 'racelens: no impacted pair'
  end
  return 'racelens: ' .. plural(status.selected or 0, 'test') .. ' for this change'
end

--- One line per selected test: `#1 pkg.PoolTest#borrow: covers 2 impacted pairs (static)`.
function M.lines(status)
  local out = {}
  for _, t in ipairs(type(status) == 'table' and status.tests or {}) do
    table.insert(out, string.format('#%d %s: covers %s (%s)', t.rank, t.test, plural(t.pairs, 'impacted pair'), t.evidence))
  end
  if type(status) == 'table' and (status.selected or 0) > #out then
    table.insert(out, string.format('... and %d more', status.selected - #out))
  end
  return out
end

--- Offers the selected tests (vim.ui.select); `explore(test)` runs the one picked.
function M.pick(status, explore)
  local tests = type(status) == 'table' and status.tests or {}
  if #tests == 0 then
    vim.notify('racelens: the change selects no test', vim.log.levels.INFO)
    return
  end
  vim.ui.select(tests, {
    prompt = 'Explore the schedules of a test the change selects:',
    format_item = function(t)
      return string.format('#%d %s (covers %s)', t.rank, t.test, plural(t.pairs, 'impacted pair'))
    end,
  }, function(t)
    if t then
      explore(t)
    end
  end)
end

return M
