-- :RacelensSchedule [test]: a failing schedule's steps (the server's `racelens/schedule`)
-- in the quickfix list, and loaded for :RacelensStep; the failure's `Step through` lens
-- (`racelens.stepSchedule`, a command of the client) does the same and shows the first step. The test is the one named
-- (`pkg.FooTest#testX`, of the current buffer's server) or else the failing test whose
-- `✗`/`Show schedule` lens is at or above the cursor (the first of the buffer above them all).
local compat = require('racelens.compat')
local protocol = require('racelens.protocol')
local lenses = require('racelens.lenses')
local lists = require('racelens.lists')
local stepper = require('racelens.stepper')

local M = {}

local SHOW = protocol.server_commands.show_schedule

local notify = require('racelens.notify')

--- The `{root, test}` of the failing schedule whose lens is at or above (0-based) `lnum` of
--- `bufnr`, else the first; nil when the buffer has none.
function M.failure_at(bufnr, lnum)
  return lenses.nearest_above(bufnr, lnum, function(lens)
    local arg = lenses.argument(lens, SHOW, { 'root', 'test' })
    return arg and { root = arg.root, test = arg.test }
  end)
end

--- Shows the steps of `schedule` (the server's answer) and loads them for the stepper.
---@param schedule racelens.ScheduleSteps
function M.show(schedule)
  local title = string.format('racelens: schedule of %s: %s', schedule.test, schedule.headline)
  local qf = lists.set_quickfix(lists.schedule_items(schedule), title)
  stepper.load(schedule, qf)
  notify(string.format('%d steps of %s in the quickfix list; :RacelensStep walks them', #schedule.steps, schedule.test))
end

--- Asks `client` for the steps of `arg` (`{root, test}`), shows them, then runs `after`.
local function fetch(client, arg, bufnr, after)
  compat.request(client, protocol.methods.schedule, arg, function(err, result)
    if err then
      notify(tostring(err.message or vim.inspect(err)), vim.log.levels.WARN)
    elseif type(result) == 'table' and type(result.steps) == 'table' then
      M.show(result)
      if after then
        after()
      end
    end
  end, bufnr)
end

--- The racelens client of the current buffer, else any; nil (and says so) when none runs.
local function current_client()
  local racelens = require('racelens')
  local client = racelens.client_for_buf(vim.api.nvim_get_current_buf()) or racelens.clients()[1]
  if not client then
    notify('no racelens server is running', vim.log.levels.WARN)
  end
  return client
end

--- :RacelensSchedule [test].
function M.run(test)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = current_client()
  if not client then
    return
  end
  local arg
  if test ~= nil and vim.trim(test) ~= '' then
    arg = { root = compat.root_of(client), test = vim.trim(test) }
  else
    arg = M.failure_at(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
  end
  if not arg then
    notify('no failing schedule in this buffer: name a test (:RacelensSchedule pkg.FooTest#testX) or put the cursor on a test with a ✗ lens', vim.log.levels.WARN)
    return
  end
  fetch(client, arg, bufnr)
end

--- `racelens.stepSchedule {root, test}` (the failure's `Step through` lens): loads the
--- schedule and goes to its first step.
function M.step_lens(command, ctx)
  local arg = command.arguments and command.arguments[1]
  local client = (ctx and ctx.client_id and compat.live_client(ctx.client_id)) or current_client()
  if type(arg) ~= 'table' or type(arg.root) ~= 'string' or type(arg.test) ~= 'string' or not client then
    return
  end
  fetch(client, { root = arg.root, test = arg.test }, ctx and ctx.bufnr, function()
    stepper.step('first')
  end)
end

return M
