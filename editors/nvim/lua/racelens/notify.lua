-- How the plugin tells the user something: through vim.notify (the user's notification
-- setup, if any), every message starting with `racelens: `.
return function(msg, level)
  vim.notify('racelens: ' .. msg, level or vim.log.levels.INFO)
end
