-- :RacelensStep: walks a failing schedule (the `racelens/schedule` answer that
-- :RacelensSchedule loaded) one step at a time, forwards and back. At each step the cursor
-- goes to the line of the thread that runs it, and every thread's current line (the line of
-- its latest step so far) gets an extmark at its end with the thread's name and what it
-- did there, the value it read or wrote included (`◀ T1 (Thread-0): write count := 2`). The
-- running thread's line is highlighted; at a preemption its mark says `⇄ preempted`
-- (RacelensStepPreemption), at the failure `✗ ...` (RacelensStepFailure). `next-preemption`/`prev-preemption` jump
-- between the places the scheduler took the CPU away; the quickfix list of the schedule
-- follows the current step.
--
-- Threads that have not run a step of the project yet have no line. Steps without a place
-- (a switch, code outside the project) leave the cursor on the thread's latest line.
local lists = require('racelens.lists')

local M = {}

local ns = vim.api.nvim_create_namespace('racelens-step')

local HIGHLIGHTS = {
  RacelensStepCurrent = 'CursorLine',
  RacelensStepThread = 'Comment',
  RacelensStepRunning = 'DiagnosticInfo',
  RacelensStepPreemption = 'DiagnosticWarn',
  RacelensStepFailure = 'DiagnosticError',
}
--- Default links of the groups (again after a colorscheme, which clears them).
local function define_highlights()
  for group, link in pairs(HIGHLIGHTS) do
    vim.cmd(string.format('highlight default link %s %s', group, link))
  end
end
define_highlights()
vim.api.nvim_create_autocmd('ColorScheme', {
  group = vim.api.nvim_create_augroup('racelens-step', { clear = true }),
  callback = define_highlights,
})

-- The loaded schedule: `schedule` (the server's answer), `at` (the current step, 0 before
-- the first), `qf` (the id of its quickfix list), `marked` (buffers with extmarks), `running`
-- (the extmark id of the running thread's line).
local state = { schedule = nil, at = 0, qf = nil, marked = {}, running = nil }

--- What the walk moves to from `at` among `steps`, or nil when there is nothing there.
--- `how`: next, prev, first, last, next-preemption, prev-preemption, or a step number.
function M.target(steps, at, how)
  local n = #steps
  if n == 0 then
    return nil
  end
  local number = tonumber(how)
  if number then
    return (number >= 1 and number <= n) and math.floor(number) or nil
  end
  local function find(from, to, by)
    for i = from, to, by do
      if steps[i].mark == 'preemption' then
        return i
      end
    end
    return nil
  end
  local moves = {
    next = function()
      return at < n and at + 1 or nil
    end,
    prev = function()
      return at > 1 and at - 1 or nil
    end,
    first = function()
      return 1
    end,
    last = function()
      return n
    end,
    ['next-preemption'] = function()
      return find(at + 1, n, 1)
    end,
    ['prev-preemption'] = function()
      return find(at - 1, 1, -1)
    end,
  }
  local move = moves[how]
  return move and move() or nil
end

--- Each thread's current place at step `at`: `{ [thread] = { step = i, location = ... } }`,
--- the latest step with a place of each thread up to `at`.
function M.places(steps, at)
  local out = {}
  for i = 1, math.min(at, #steps) do
    local s = steps[i]
    if s.thread and s.location then
      out[s.thread] = { step = i, location = s.location }
    end
  end
  return out
end

local function clear()
  for bufnr in pairs(state.marked) do
    if vim.api.nvim_buf_is_valid(bufnr) then
      vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
    end
  end
  state.marked = {}
  state.running = nil
end

local function buffer_of(uri)
  local bufnr = vim.uri_to_bufnr(uri)
  vim.fn.bufload(bufnr)
  return bufnr
end

--- Marks each thread's current line at the current step; returns the running thread's place.
local function mark()
  clear()
  local schedule, at = state.schedule, state.at
  local steps = schedule.steps
  local current = steps[at]
  local places = M.places(steps, at)
  for thread, place in pairs(places) do
    local running = thread == current.thread
    local step = running and current or steps[place.step]
    -- A preemption's and a failure's words start with their own mark (`⇄ preempted`, `✗ ...`).
    local prefix = step.mark == 'step' and '◀ ' or ''
    local hl = running and 'RacelensStepRunning' or 'RacelensStepThread'
    if running and current.mark == 'preemption' then
      hl = 'RacelensStepPreemption'
    elseif running and current.mark == 'failure' then
      hl = 'RacelensStepFailure'
    end
    local bufnr = buffer_of(place.location.uri)
    local line = place.location.range.start.line
    if line < vim.api.nvim_buf_line_count(bufnr) then
      local opts = { virt_text = { { prefix .. lists.step_text(schedule, step), hl } }, virt_text_pos = 'eol' }
      if running then
        opts.line_hl_group = 'RacelensStepCurrent'
      end
      local id = vim.api.nvim_buf_set_extmark(bufnr, ns, line, 0, opts)
      state.marked[bufnr] = true
      if running then
        state.running = id
      end
    end
  end
  return current.thread and places[current.thread] or current.location and { location = current.location }
end

--- The marks of the current step in `bufnr`: `{ line (0-based), text, hl, current }` per
--- marked line, `current` on the running thread's (for tests and statuslines).
function M.marks(bufnr)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      table.insert(out, { line = m[2], text = chunk[1], hl = chunk[2], current = m[1] == state.running })
    end
  end
  return out
end

--- Loads a `racelens/schedule` answer to walk (`qf`: the id of its quickfix list).
---@param schedule racelens.ScheduleSteps
function M.load(schedule, qf)
  clear()
  state.schedule, state.at, state.qf = schedule, 0, qf
end

--- The loaded schedule and the current step (0 before the first), or nil.
function M.current()
  return state.schedule and { schedule = state.schedule, at = state.at } or nil
end

--- :RacelensStep [how]: moves the walk (see M.target; default next), or `stop` clears it.
function M.step(how)
  how = (how == nil or how == '') and 'next' or vim.trim(how)
  if how == 'stop' then
    clear()
    state.at = 0
    return
  end
  if not state.schedule then
    vim.notify('racelens: no schedule to step through: run :RacelensSchedule on a test with a failing schedule (its ✗ lens)', vim.log.levels.WARN)
    return
  end
  local steps = state.schedule.steps
  local to = M.target(steps, state.at, how)
  if not to then
    local where = how:find('preemption', 1, true) and 'no further preemption that way' or 'no step there'
    vim.notify(string.format('racelens: %s (step %d of %d)', where, state.at, #steps), vim.log.levels.INFO)
    return
  end
  state.at = to
  local place = mark()
  lists.select_quickfix_entry(state.qf, to)
  if place then
    local bufnr = buffer_of(place.location.uri)
    if vim.api.nvim_get_current_buf() ~= bufnr then
      local ok, problem = pcall(vim.api.nvim_win_set_buf, 0, bufnr)
      if not ok then
        vim.notify('racelens: cannot show the step: ' .. tostring(problem), vim.log.levels.WARN)
      end
    end
    if vim.api.nvim_get_current_buf() == bufnr then
      local line = math.min(place.location.range.start.line + 1, vim.api.nvim_buf_line_count(bufnr))
      vim.api.nvim_win_set_cursor(0, { line, 0 })
    end
  end
  local step = steps[to]
  vim.api.nvim_echo({ { string.format('racelens: step %d of %d · %s', to, #steps, lists.step_text(state.schedule, step)) } }, false, {})
end

local HOWS = { 'next', 'prev', 'first', 'last', 'next-preemption', 'prev-preemption', 'stop' }

--- Completion of :RacelensStep.
function M.complete(lead)
  return vim.tbl_filter(function(h)
    return h:sub(1, #lead) == lead
  end, HOWS)
end

return M
