-- The progress of explorations, as the racelens servers report it (`$/progress` for
-- tokens `racelens/explore/<id>`): each step in the message area (one line, cut to fit,
-- so that it never asks to press Enter, and not kept in :messages: the server's own
-- messages say what a failure or a replay found), and the running ones for :RacelensInfo.
local M = {}

local PREFIX = 'racelens/explore/'
--- Finished explorations kept for `M.list()` (the oldest go first).
local KEEP_DONE = 20

--- In order of their begin: { client_id, token, title, message, done }.
local explorations = {}

function M.is_exploration(token)
  return type(token) == 'string' and token:sub(1, #PREFIX) == PREFIX
end

local function find(client_id, token)
  for _, e in ipairs(explorations) do
    if e.client_id == client_id and e.token == token then
      return e
    end
  end
  return nil
end

local function forget_old()
  local done = 0
  for i = #explorations, 1, -1 do
    if explorations[i].done then
      done = done + 1
      if done > KEEP_DONE then
        table.remove(explorations, i)
      end
    end
  end
end

--- `racelens: exploring pkg.FooTest#bar: 12 schedules · …`
local function describe(e)
  if e.message and e.message ~= '' then
    return e.title .. ': ' .. e.message
  end
  return e.title
end

--- Shows one line in the message area, cut to its width, not kept in :messages.
local function echo(text)
  local width = math.max((vim.v.echospace or 80) - 1, 20)
  if vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, width - 1) .. '…'
  end
  vim.api.nvim_echo({ { text } }, false, {})
end

--- Takes one `$/progress` value (`begin`, `report` or `end`) of an exploration's token.
function M.update(client_id, token, value)
  local e = find(client_id, token)
  if value.kind == 'begin' then
    e = { client_id = client_id, token = token, title = value.title or 'racelens: exploring', message = value.message }
    table.insert(explorations, e)
  elseif not e then
    return
  elseif value.message then
    e.message = value.message
  end
  if value.kind == 'end' then
    e.done = true
    forget_old()
  end
  echo(describe(e))
end

--- Forgets the explorations of a client that stopped (they stopped with it).
function M.forget_client(client_id)
  for i = #explorations, 1, -1 do
    if explorations[i].client_id == client_id then
      table.remove(explorations, i)
    end
  end
end

--- The explorations reported so far (running ones, and the last finished ones), oldest
--- first, as copies: { client_id, token, title, message, done }.
function M.list()
  return vim.deepcopy(explorations)
end

--- Lines for :RacelensInfo: the explorations still running.
function M.info_lines()
  local lines = {}
  for _, e in ipairs(explorations) do
    if not e.done then
      table.insert(lines, string.format('  client %d %s', e.client_id, describe(e)))
    end
  end
  return lines
end

return M
