-- The racelens client configuration, one piece of code for both ways to start the server:
-- `require('racelens').setup()` (init.lua, every version from 0.7 on) and the runtimepath
-- config `lsp/racelens.lua` that `vim.lsp.enable('racelens')` reads on Neovim 0.11+.
-- What a client does when it attaches a buffer or exits lives in init.lua
-- (required when called: it requires us).
local commands = require('racelens.commands')
local selection_status = require('racelens.status')
local protocol = require('racelens.protocol')

local M = {}

M.NAME = 'racelens'

--- The options of setup(), and what lsp/racelens.lua starts with. Without a `cmd`, the
--- plugin looks for a `racelens` itself (M.find_server).
M.defaults = {
  cmd = nil,
  settings = {},
  filetypes = { 'java' },
  root_markers = { 'racelens.toml', '.git' },
  on_attach = nil,
}

local function racelens()
  return require('racelens')
end

--- How to install the server, for the messages that say none was found.
M.INSTALL = 'in the racelens repository: `cargo install --locked --path server/cli`'

--- The cargo bin folder, where `cargo install` puts binaries: $CARGO_HOME/bin, by default
--- ~/.cargo/bin. Returns the folder and how to name it to the user.
function M.cargo_bin()
  local home = vim.env.CARGO_HOME
  if home and home ~= '' then
    return home .. '/bin', '$CARGO_HOME/bin'
  end
  return (vim.env.HOME or '') .. '/.cargo/bin', '~/.cargo/bin'
end

--- The `racelens` to run when no `cmd` is configured: the one on PATH, else the one in the
--- cargo bin folder. Returns `{ path = ..., from = 'PATH' | '$CARGO_HOME/bin' | '~/.cargo/bin' }`,
--- or nil and the places looked in.
function M.find_server()
  local on_path = vim.fn.exepath('racelens')
  if on_path ~= '' then
    return { path = on_path, from = 'PATH' }
  end
  local dir, name = M.cargo_bin()
  local bin = dir .. '/racelens'
  if vim.fn.executable(bin) == 1 then
    return { path = bin, from = name }
  end
  return nil, string.format('PATH and %s (%s)', name, dir)
end

--- The server command when none is configured: the racelens found, else `racelens lsp`
--- (which will not start; the plugin says what to do).
function M.default_cmd()
  local found = M.find_server()
  return { found and found.path or 'racelens', 'lsp' }
end

--- The settings as JSON wants them: an empty table must go out as `{}`, not `[]`.
function M.settings_value(settings)
  if type(settings) ~= 'table' or next(settings) == nil then
    return vim.empty_dict()
  end
  return vim.deepcopy(settings)
end

function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  -- 0.7 answers `workspace/configuration` from `settings` but does not say so.
  if caps.workspace.configuration == nil and vim.lsp.handlers['workspace/configuration'] then
    caps.workspace.configuration = true
  end
  caps.experimental = caps.experimental or {}
  caps.experimental.racelens = { selectionStatus = true, stepSchedule = true }
  return caps
end

function M.handlers()
  local handlers = commands.handlers()
  -- Sent instead of `workspace/codeLens/refresh` to clients without refreshSupport.
  handlers[protocol.methods.code_lens_refresh] = function(_, _, ctx)
    racelens().refresh_client_lenses(ctx.client_id)
  end
  handlers[protocol.methods.selection_status] = selection_status.on_status
  if not vim.lsp.handlers['workspace/codeLens/refresh'] then
    -- 0.7 has no handler for the standard request; answer it rather than fail it.
    handlers['workspace/codeLens/refresh'] = function(_, _, ctx)
      vim.schedule(function()
        racelens().refresh_client_lenses(ctx.client_id)
      end)
      return vim.NIL
    end
  end
  return handlers
end

--- `initializationOptions` are the `racelens` settings, taken from the final config (on
--- 0.11+ a user's `vim.lsp.config('racelens', { settings = ... })` is merged into ours).
local function before_init(params, config)
  config.settings = config.settings or {}
  local settings = M.settings_value(config.settings[M.NAME])
  -- The same table as the client's `settings`: `workspace/configuration` serves it.
  config.settings[M.NAME] = settings
  params.initializationOptions = settings
end

--- The client config for options `opts` (setup()'s, defaults applied), without `root_dir`:
--- setup() adds the root it found, `vim.lsp.enable` finds one from `root_markers`.
--- Without `opts.cmd`, the racelens found now (M.default_cmd).
function M.client_config(opts)
  return {
    name = M.NAME,
    cmd = vim.deepcopy(opts.cmd) or M.default_cmd(),
    filetypes = vim.deepcopy(opts.filetypes),
    root_markers = vim.deepcopy(opts.root_markers),
    settings = { [M.NAME] = M.settings_value(opts.settings) },
    before_init = before_init,
    capabilities = M.capabilities(),
    handlers = M.handlers(),
    commands = commands.client_commands(),
    on_attach = function(client, bufnr)
      racelens().on_attach(client, bufnr)
    end,
    on_exit = function(code, signal, client_id)
      racelens()._on_exit(code, signal, client_id)
    end,
  }
end

-- (vim.validate's table form is deprecated from 0.11 on: checked by hand.)
--- What is wrong with setup()'s options, or nil.
function M.validate(opts)
  local function list_of_strings(v)
    if type(v) ~= 'table' then
      return false
    end
    for _, x in ipairs(v) do
      if type(x) ~= 'string' then
        return false
      end
    end
    return true
  end
  if opts.cmd ~= nil and (not list_of_strings(opts.cmd) or #opts.cmd == 0) then
    return 'cmd must be a list of strings, like { "racelens", "lsp" }'
  elseif type(opts.settings) ~= 'table' then
    return 'settings must be a table, like { base = "HEAD" }'
  elseif not list_of_strings(opts.filetypes) then
    return 'filetypes must be a list of strings'
  elseif not list_of_strings(opts.root_markers) then
    return 'root_markers must be a list of strings'
  elseif opts.on_attach ~= nil and type(opts.on_attach) ~= 'function' then
    return 'on_attach must be a function(client, bufnr)'
  end
  return nil
end

return M
