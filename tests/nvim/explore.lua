-- End-to-end test of an exploration through the Neovim plugin against the real server,
-- headless: the explore-lost-update fixture, whose change removes `synchronized` from
-- LatencyStats.record() so that two threads lose an update. The test clicks the
-- `▶ Explore schedules` lens with :RacelensRunLens, follows the progress, waits for the
-- failure's lenses and RL200 diagnostic, shows the schedule in a scratch buffer, copies
-- the replay command, replays it, restarts (the result comes back from the cache with
-- `↻ Explore again`), explores again with :RacelensExplore (another heuristic and a seed;
-- then an unknown heuristic, refused), and cancels what is left.
-- Run by tests/nvim/run.sh, which makes the git repository and sets:
--   RACELENS_E2E_EXPLORE_PROJECT  the repository
--   RACELENS_BIN                  the racelens binary
--   RACELENS_NVIM_RTP             editors/nvim (put on the runtimepath here)

local harness = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/harness.lua')
local out, check = harness.out, harness.check
local project, bin, notes = harness.e2e_setup('RACELENS_E2E_EXPLORE_PROJECT')

local TEST_FILE = 'src/test/java/org/example/metrics/LatencyStatsTest.java'
local TEST = 'org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted'
--- A JVM starts in a second or two and the exploration takes seconds: generous, not slow.
local EXPLORATION_MS = 90000

local function noted(text)
  return harness.noted(notes, text)
end

local function exploration()
  return harness.exploration('racelens: exploring ' .. TEST)
end

local buffer_text = harness.buffer_text
local uv = vim.uv or vim.loop

--- Puts the cursor on the line of `lens` in the test's buffer, and runs :RacelensRunLens `title`.
local function run_lens(test_buf, lens, title)
  vim.api.nvim_set_current_buf(test_buf)
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  vim.cmd('RacelensRunLens ' .. title)
end

--- Clicks the ▶ lens and follows the exploration's progress to its end.
local function explore(test_buf)
  local lens = harness.wait_lens(test_buf, '▶ Explore schedules', 30000, 'racelens.exploreTest')
  out('ok: ' .. lens.command.title)
  run_lens(test_buf, lens, '')
  check(vim.wait(EXPLORATION_MS, function()
    return exploration() ~= nil
  end, 50), 'no progress of the exploration: ' .. vim.inspect(require('racelens').explorations()))
  check(vim.wait(EXPLORATION_MS, function()
    return exploration().done
  end, 50), 'the exploration did not end: ' .. vim.inspect(exploration()))
  local ended = exploration().message
  check(ended:match('^✗ AssertionError after %d+ schedules?$'), 'the exploration ended with: ' .. ended)
  check(vim.wait(10000, function()
    return noted('racelens: ' .. TEST .. ': ' .. ended) ~= nil
  end, 50), 'the server did not say what it found: ' .. vim.inspect(notes))
  out('ok: progress ended: ' .. ended)
end

--- The failure's lenses on the test, and its RL200 diagnostic.
local function failure(test_buf)
  local failed = harness.wait_lens(test_buf, '✗ ', EXPLORATION_MS)
  check(failed.command.title:match('^✗ AssertionError after %d+ schedules? %(%d+ preemptions?%) · pct%+LA$'),
    'failure lens: ' .. failed.command.title)
  out('ok: lenses\n' .. harness.describe_lenses(test_buf))
  local rl200 = harness.wait_diagnostic(test_buf, 'RL200 error on the test', 30000, function(d)
    return harness.diag_code(d) == 'RL200' and d.severity == vim.diagnostic.severity.ERROR
  end)
  out(string.format('ok: RL200 on line %d: %s', rl200.lnum, rl200.message))
  return failed
end

--- Show schedule: a read-only markdown scratch buffer with the table and the replay command.
local function show_schedule(test_buf, lens)
  run_lens(test_buf, lens, 'show schedule')
  local documents = require('racelens.documents')
  local uri
  check(vim.wait(15000, function()
    uri = documents.uri_from_name(vim.api.nvim_buf_get_name(0))
    return uri ~= nil and uri:match('^racelens:/schedule/[%w%-]+/[%w_$]+%.[%w_$]+%.md$') ~= nil and buffer_text(0):find('racelens replay', 1, true)
  end, 50), 'no schedule document in the current window: ' .. vim.api.nvim_buf_get_name(0) .. '\n' .. buffer_text(0))
  local schedule = vim.api.nvim_get_current_buf()
  local text = buffer_text(schedule)
  check(text:find('| T0 (main)', 1, true) and text:find('| T1 (Thread-0)', 1, true), 'no per-thread table:\n' .. text)
  check(vim.bo[schedule].filetype == 'markdown' and vim.bo[schedule].buftype == 'nofile'
    and not vim.bo[schedule].modifiable, 'the schedule is not in a read-only markdown scratch buffer')
  out(string.format('ok: %s in a scratch buffer (%d lines)', uri, vim.api.nvim_buf_line_count(schedule)))
  vim.cmd('only')
  return text
end

--- :RacelensSchedule puts the failing schedule's steps in the quickfix list; :RacelensStep
--- walks them: the cursor on the running thread's line, each thread's line marked with its
--- name and what it did (the value written), the preemptions, the failure, and back.
local function step_through(test_buf, lens)
  vim.api.nvim_set_current_buf(test_buf)
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  local stepper = require('racelens.stepper')
  vim.cmd('RacelensStep')
  check(noted('racelens: no schedule to step through: run :RacelensSchedule'), ':RacelensStep before a schedule said: ' .. vim.inspect(notes))
  -- The failure's `Step through` lens: the schedule loaded, at its first step.
  run_lens(test_buf, lens, 'Step through')
  check(vim.wait(15000, function()
    local c = stepper.current()
    return c ~= nil and c.at == 1
  end, 50), 'the Step through lens did not start the stepper: ' .. vim.inspect(notes))
  out('ok: the Step through lens -> step 1 of ' .. #stepper.current().schedule.steps)
  vim.cmd('RacelensStep stop')
  vim.cmd('cclose')
  vim.api.nvim_set_current_buf(test_buf)
  vim.api.nvim_win_set_cursor(0, { lens.range.start.line + 1, 0 })
  vim.cmd('RacelensSchedule')
  check(vim.wait(15000, function()
    return stepper.current() ~= nil
  end, 50), 'no schedule loaded by :RacelensSchedule: ' .. vim.inspect(notes))
  local steps = stepper.current().schedule.steps
  local qf = vim.fn.getqflist({ title = 1, items = 1, id = 0 })
  check(qf.title:find('racelens: schedule of ' .. TEST .. ': java.lang.AssertionError', 1, true) and #qf.items == #steps,
    'quickfix list of the schedule: ' .. qf.title .. ', ' .. #qf.items .. ' items for ' .. #steps .. ' steps')
  local last = qf.items[#qf.items]
  check(last.type == 'E' and last.valid == 1 and last.bufnr == test_buf and last.text:find('AssertionError', 1, true),
    'the last entry is not the failure in the test: ' .. vim.inspect(last))
  out(string.format('ok: :RacelensSchedule -> %d steps in the quickfix list; last: %s:%d %s', #qf.items, TEST_FILE, last.lnum, last.text))

  local function marks_in(rel)
    return stepper.marks(vim.fn.bufnr(project .. '/' .. rel))
  end
  local function running(rel)
    for _, m in ipairs(marks_in(rel)) do
      if m.current then
        return m
      end
    end
    return nil
  end
  -- A write of the shared counter, with its value: the cursor goes there, marked as running.
  local write
  for i, s in ipairs(steps) do
    if s.mark == 'step' and s.location and s.location.uri:find('LatencyStats.java', 1, true) and s.text:find(' := ', 1, true) then
      write = write or i
    end
  end
  check(write, 'no write with its value in the steps: ' .. vim.inspect(steps))
  vim.cmd('RacelensStep ' .. write)
  local stats = 'src/main/java/org/example/metrics/LatencyStats.java'
  local here = running(stats)
  check(vim.api.nvim_buf_get_name(0):sub(-#stats) == stats and here and here.line + 1 == vim.api.nvim_win_get_cursor(0)[1]
    and here.text:find('^◀ T%d+ %(.-%): write .* := ') and here.hl == 'RacelensStepRunning',
    'step ' .. write .. ': cursor in ' .. vim.api.nvim_buf_get_name(0) .. ':' .. vim.api.nvim_win_get_cursor(0)[1] .. ', marks ' .. vim.inspect(marks_in(stats)))
  out(string.format('ok: :RacelensStep %d -> %s:%d %s', write, stats, here.line + 1, here.text))
  -- One step on: the cursor follows the next step's thread, and the quickfix list too.
  vim.cmd('RacelensStep')
  local at = stepper.current().at
  check(at == write + 1 and vim.fn.getqflist({ id = qf.id, idx = 0 }).idx == at, 'next: at ' .. at .. ', quickfix entry ' .. vim.fn.getqflist({ id = qf.id, idx = 0 }).idx)
  -- The first preemption: the preempted thread's line says so.
  vim.cmd('RacelensStep first')
  vim.cmd('RacelensStep next-preemption')
  local p = stepper.current().at
  check(steps[p].mark == 'preemption', 'next-preemption stopped at ' .. vim.inspect(steps[p]))
  local preempted
  for _, m in ipairs(marks_in(stats)) do
    preempted = preempted or (m.current and m.text:find('⇄ preempted', 1, true) and m.hl == 'RacelensStepPreemption' and m)
  end
  check(preempted and preempted.line + 1 == vim.api.nvim_win_get_cursor(0)[1], 'preemption ' .. p .. ': marks ' .. vim.inspect(marks_in(stats)))
  out(string.format('ok: :RacelensStep next-preemption -> step %d, line %d: %s', p, preempted.line + 1, preempted.text))
  vim.cmd('RacelensStep prev')
  check(stepper.current().at == p - 1, 'prev went to ' .. stepper.current().at)
  -- The last step: the failure, at the assertion of the test.
  vim.cmd('RacelensStep last')
  local failed = running(TEST_FILE)
  check(vim.api.nvim_get_current_buf() == test_buf and failed and failed.line + 1 == last.lnum and failed.text:find('✗ ', 1, true)
    and failed.hl == 'RacelensStepFailure', 'last: marks ' .. vim.inspect(marks_in(TEST_FILE)))
  out('ok: :RacelensStep last -> ' .. failed.text)
  vim.cmd('RacelensStep stop')
  check(#marks_in(TEST_FILE) == 0 and #marks_in(stats) == 0, 'marks left after :RacelensStep stop')
  vim.cmd('cclose')
end

--- Waits for the lens of a finished exploration whose title ends with ` · <by>`.
local function wait_result(test_buf, by)
  local function find()
    for _, lens in ipairs(harness.codelenses(test_buf)) do
      local title = lens.command and lens.command.title or ''
      local suffix = ' · ' .. by
      if title:sub(1, #'✗ ') == '✗ ' and title:sub(-#suffix) == suffix then
        return lens
      end
    end
    return nil
  end
  local deadline = uv.now() + EXPLORATION_MS
  while not find() and uv.now() < deadline do
    require('racelens').refresh_codelens(test_buf)
    vim.wait(1000, function()
      return find() ~= nil
    end, 50)
  end
  check(find(), 'no ✗ lens by ' .. by .. '; lenses:\n' .. harness.describe_lenses(test_buf))
  return find()
end

--- After a restart the result comes back from the cache, naming its heuristic, with
--- `↻ Explore again`; :RacelensExplore (vim.ui.select, vim.ui.input) explores the test again
--- with another heuristic and a seed, and refuses an unknown heuristic with the server's error.
local function explore_again(test_buf)
  vim.cmd('RacelensRestart')
  harness.wait_attached(test_buf, TEST_FILE)
  local again = harness.wait_lens(test_buf, '↻ Explore again', 30000, 'racelens.exploreTest')
  check(again.command.arguments[1].again == true, 'the ↻ lens does not replace: ' .. vim.inspect(again.command))
  local restored = wait_result(test_buf, 'pct+LA')
  out('ok: after :RacelensRestart: ' .. restored.command.title .. ' | ' .. again.command.title)

  vim.api.nvim_set_current_buf(test_buf)
  vim.api.nvim_win_set_cursor(0, { again.range.start.line + 2, 0 })
  local offered, asked
  local orig_select, orig_input = vim.ui.select, vim.ui.input
  vim.ui.select = function(items, _, on_choice)
    offered = items
    on_choice('basic')
  end
  vim.ui.input = function(opts, on_confirm)
    asked = opts.prompt
    on_confirm('7')
  end
  vim.cmd('RacelensExplore')
  vim.ui.select, vim.ui.input = orig_select, orig_input
  check(offered and offered[2] == 'basic' and vim.tbl_contains(offered, 'pct+LA') and vim.tbl_contains(offered, 'LOS') and vim.tbl_contains(offered, 'pos')
    and #offered == 21, ':RacelensExplore offered ' .. vim.inspect(offered))
  check(asked and asked:find('seed', 1, true), ':RacelensExplore asked ' .. tostring(asked))
  local redone = wait_result(test_buf, 'basic, seed 7')
  check(redone.command.title:match('^✗ AssertionError after %d+ schedules? %(%d+ preemptions?%) · basic, seed 7$'), redone.command.title)
  check(vim.wait(10000, function()
    return noted('racelens: ' .. TEST .. ': ✗ AssertionError after ') and noted(' · basic, seed 7') ~= nil
  end, 50), 'the server did not say what the new exploration found: ' .. vim.inspect(notes))
  out('ok: :RacelensExplore (basic, seed 7): ' .. redone.command.title)

  check(vim.deep_equal(vim.fn.getcompletion('RacelensExplore pct', 'cmdline'), { 'pct', 'pct+LA' }),
    ':RacelensExplore completes ' .. vim.inspect(vim.fn.getcompletion('RacelensExplore pct', 'cmdline')))
  vim.cmd('RacelensExplore LOX')
  check(vim.wait(10000, function()
    return noted('cannot explore ' .. TEST .. ': unknown heuristic `LOX`') ~= nil
  end, 50), 'no error for an unknown heuristic: ' .. vim.inspect(notes))
  out('ok: :RacelensExplore LOX -> ' .. noted('unknown heuristic `LOX`'))
end

local function test()
  harness.out_setup(bin, project)
  vim.cmd('filetype on')
  vim.o.hidden = true
  vim.cmd('cd ' .. vim.fn.fnameescape(project))
  require('racelens').setup({ cmd = { bin, 'lsp' } })

  vim.cmd('edit ' .. TEST_FILE)
  local test_buf = vim.api.nvim_get_current_buf()
  harness.wait_attached(test_buf, TEST_FILE)
  explore(test_buf)
  local failed = failure(test_buf)
  local text = show_schedule(test_buf, failed)
  step_through(test_buf, failed)

  -- Copy: the client's own command, to the unnamed register.
  run_lens(test_buf, failed, 'Copy')
  local copied = vim.fn.getreg('"')
  check(copied:match('^racelens replay .* %-%-test ' .. vim.pesc(TEST) .. ' %-%-schedule %S+$'), 'register ": ' .. copied)
  check(text:find(copied, 1, true), 'the schedule document does not have the copied command ' .. copied)
  out('ok: Copy -> register ": ' .. copied)

  -- Replay: one execution of the schedule, which still fails.
  run_lens(test_buf, failed, 'Replay')
  check(vim.wait(EXPLORATION_MS, function()
    return noted('racelens: replay of ' .. TEST .. ': still fails') ~= nil
  end, 50), 'no replay message: ' .. vim.inspect(notes))
  out('ok: ' .. noted('racelens: replay of '))

  explore_again(test_buf)

  vim.cmd('RacelensCancel')
  check(vim.wait(10000, function()
    return noted('racelens: no exploration was running or queued') ~= nil
  end, 50), ':RacelensCancel said: ' .. vim.inspect(notes))
  out('ok: :RacelensCancel: nothing left to cancel')
end

harness.run('nvim explore', test, harness.e2e_report(notes))
