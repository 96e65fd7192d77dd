-- What racelens puts in Neovim's quickfix and location lists, so that `:cnext`/`:lnext`
-- walk it:
-- - `:RacelensSelected`: the tests the change selects, best first, at their declarations
--   (then, as text lines, the changed state whose sharing the analysis could not decide);
-- - `:RacelensSchedule`: a failing schedule, one entry per step (`T1 (Thread-0): write
--   count := 2`) at its line, the preemptions as warnings and the failure as an error;
--   steps outside the project are text lines, which `:cnext` skips;
-- - `:RacelensRelated`: the racelens warning under the cursor and its related locations
--   (the other end of a pair, the lock site) in the window's location list.
-- Each list gets a title saying what it is; a picker that shows quickfix lists (telescope's
-- `quickfix`, fzf-lua's `quickfix`) shows these too, and none is needed.
local M = {}

local NAME = 'racelens'

local function plural(n, what)
  return string.format('%d %s%s', n, what, n == 1 and '' or 's')
end

--- `2 impacted pairs`, `1 method with a warning`, or both (a selected test's evidence).
function M.covers(t)
  local warned = t.warned or 0
  if warned == 0 then
    return plural(t.pairs or 0, 'impacted pair')
  end
  local methods = plural(warned, 'method with a warning')
  if (t.pairs or 0) == 0 then
    return methods
  end
  return plural(t.pairs, 'impacted pair') .. ' and ' .. methods
end

local function file_of(uri)
  return type(uri) == 'string' and uri:sub(1, 5) == 'file:' and vim.uri_to_fname(uri) or nil
end

--- Quickfix items of a `racelens/selectionStatus`: one per selected test it carries.
function M.selected_items(status)
  local items = {}
  for _, t in ipairs(type(status) == 'table' and status.tests or {}) do
    local text = string.format('#%d %s: covers %s (%s)', t.rank, t.test, M.covers(t), t.evidence)
    local file = file_of(t.explore and t.explore.uri)
    if file then
      table.insert(items, { filename = file, lnum = (tonumber(t.line) or 0) + 1, col = 1, text = text })
    else
      table.insert(items, { text = text })
    end
  end
  if type(status) == 'table' and (status.selected or 0) > #(status.tests or {}) then
    table.insert(items, { text = string.format('... and %d more (racelens select lists them all)', status.selected - #status.tests) })
  end
  for _, u in ipairs(type(status) == 'table' and type(status.undecided) == 'table' and status.undecided or {}) do
    table.insert(items, { text = 'not known to be shared: ' .. u })
  end
  return items
end

local STEP_TYPES = { preemption = 'W', failure = 'E' }

--- The text of step `step` of `schedule` (a `racelens/schedule` answer): `T1 (Thread-0):
--- write count := 2 (LatencyStats.java:14)`.
function M.step_text(schedule, step)
  local thread = step.thread and schedule.threads[step.thread + 1]
  return thread and (thread .. ': ' .. step.text) or step.text
end

--- Quickfix items of a `racelens/schedule` answer: one per step, in order.
function M.schedule_items(schedule)
  local items = {}
  for _, step in ipairs(schedule.steps or {}) do
    local item = { text = M.step_text(schedule, step), type = STEP_TYPES[step.mark] }
    local loc = step.location
    local file = loc and file_of(loc.uri)
    if file then
      item.filename, item.lnum, item.col = file, loc.range.start.line + 1, 1
    end
    table.insert(items, item)
  end
  return items
end

--- The code of a diagnostic (`RL001`), where Neovim keeps it.
function M.code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

--- The racelens diagnostic (with a code) of the cursor: under it, else the first on its
--- line; nil when there is none (:RacelensRelated, :RacelensExplain).
function M.diagnostic_at_cursor()
  local lnum, col = vim.api.nvim_win_get_cursor(0)[1] - 1, vim.api.nvim_win_get_cursor(0)[2]
  local best
  for _, d in ipairs(vim.diagnostic.get(0, { lnum = lnum })) do
    local lsp = d.user_data and d.user_data.lsp or {}
    if (d.source == NAME or lsp.source == NAME) and M.code_of(d) then
      if not best or (d.col <= col and col <= (d.end_col or d.col)) then
        best = d
      end
    end
  end
  return best
end

--- Location-list items of a racelens diagnostic: itself, then its related locations.
function M.related_items(d, bufnr)
  local code = M.code_of(d)
  local items = { { bufnr = bufnr, lnum = d.lnum + 1, col = d.col + 1, text = code .. ' ' .. d.message, type = 'W' } }
  local related = d.user_data and d.user_data.lsp and d.user_data.lsp.relatedInformation or {}
  for _, r in ipairs(related) do
    local file = file_of(r.location and r.location.uri)
    if file then
      table.insert(items, { filename = file, lnum = r.location.range.start.line + 1, col = r.location.range.start.character + 1, text = r.message })
    end
  end
  return items
end

--- Sets the quickfix list to `items` with `title` and opens its window; returns the list's id.
function M.set_quickfix(items, title)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  vim.cmd('botright copen')
  vim.cmd('wincmd p')
  return vim.fn.getqflist({ id = 0 }).id
end

--- Makes entry `idx` (1-based) of the quickfix list `id` the current one, if the list is
--- still there (the stepper follows its steps in the list).
function M.select_quickfix_entry(id, idx)
  if id and vim.fn.getqflist({ id = id }).id == id then
    vim.fn.setqflist({}, 'a', { id = id, idx = idx })
  end
end

--- :RacelensRelated: the warning under the cursor and its related locations, in the
--- window's location list.
function M.related()
  local d = M.diagnostic_at_cursor()
  if not d then
    vim.notify('racelens: no racelens diagnostic on this line', vim.log.levels.WARN)
    return
  end
  local items = M.related_items(d, vim.api.nvim_get_current_buf())
  vim.fn.setloclist(0, {}, ' ', { title = 'racelens: ' .. items[1].text, items = items })
  vim.cmd('lopen')
  vim.cmd('wincmd p')
end

return M
