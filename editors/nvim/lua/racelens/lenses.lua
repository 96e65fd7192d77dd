-- The racelens code lenses of a line, and which one :RacelensRunLens runs: the one whose
-- title the command names (the same title, else one that starts with it, else one that
-- contains it; case ignored), the only one, or the one picked with vim.ui.select.
local compat = require('racelens.compat')

local M = {}

local function is_racelens(lens)
  local c = lens.command
  return c ~= nil and type(c.command) == 'string' and c.command:sub(1, #'racelens.') == 'racelens.'
    and type(c.title) == 'string'
end

--- The argument of `lens` if it runs `command` with one that has the string `fields`, else nil.
function M.argument(lens, command, fields)
  local c = lens.command
  local arg = c and c.command == command and c.arguments and c.arguments[1]
  if type(arg) ~= 'table' then
    return nil
  end
  for _, f in ipairs(fields) do
    if type(arg[f]) ~= 'string' then
      return nil
    end
  end
  return arg
end

--- The value `pick(lens)` gives for the lens of `bufnr` nearest at or above (0-based) line
--- `lnum` among those it gives one for, else for the first of the buffer; nil when none.
function M.nearest_above(bufnr, lnum, pick)
  local best, first
  for _, lens in ipairs(compat.codelenses(bufnr)) do
    local value = pick(lens)
    if value ~= nil then
      local line = lens.range.start.line
      if not first or line < first.line then
        first = { line = line, value = value }
      end
      if line <= lnum and (not best or line > best.line) then
        best = { line = line, value = value }
      end
    end
  end
  local found = best or first
  return found and found.value
end

--- The racelens lenses of line `lnum` (0-based) of `bufnr`, in the order they are shown.
function M.on_line(bufnr, lnum)
  local out = {}
  for _, lens in ipairs(compat.codelenses(bufnr)) do
    if lens.range.start.line == lnum and is_racelens(lens) then
      table.insert(out, lens)
    end
  end
  return out
end

local MATCHES = {
  function(title, query)
    return title == query
  end,
  function(title, query)
    return title:sub(1, #query) == query
  end,
  function(title, query)
    return title:find(query, 1, true) ~= nil
  end,
}

--- The lenses whose title matches `query` best (every lens when there is no query).
function M.matching(lenses, query)
  if query == nil or query == '' then
    return lenses
  end
  query = query:lower()
  for _, matches in ipairs(MATCHES) do
    local hits = {}
    for _, lens in ipairs(lenses) do
      if matches(lens.command.title:lower(), query) then
        table.insert(hits, lens)
      end
    end
    if #hits > 0 then
      return hits
    end
  end
  return {}
end

--- Runs `run(lens)` for the lens of `lenses` that `query` picks, asking with vim.ui.select
--- when several are left. Returns nil, or what to say when none is left.
function M.pick(lenses, query, run)
  local candidates = M.matching(lenses, query)
  if #candidates == 0 then
    local titles = {}
    for _, lens in ipairs(lenses) do
      table.insert(titles, lens.command.title)
    end
    if #titles == 0 then
      return 'no racelens code lens on this line'
    end
    return string.format('no code lens "%s" on this line (there are: %s)', query, table.concat(titles, ', '))
  end
  if #candidates == 1 then
    run(candidates[1])
    return nil
  end
  vim.ui.select(candidates, {
    prompt = 'racelens:',
    format_item = function(lens)
      return lens.command.title
    end,
  }, function(choice)
    if choice then
      run(choice)
    end
  end)
  return nil
end

--- Completion of :RacelensRunLens: the titles of the cursor line's lenses.
function M.complete(arg_lead)
  local bufnr = vim.api.nvim_get_current_buf()
  local lnum = vim.api.nvim_win_get_cursor(0)[1] - 1
  local out = {}
  for _, lens in ipairs(M.matching(M.on_line(bufnr, lnum), arg_lead)) do
    table.insert(out, lens.command.title)
  end
  return out
end

return M
