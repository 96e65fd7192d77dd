-- The racelens language server for Neovim 0.11+'s `vim.lsp.enable('racelens')`, which reads
-- `lsp/<name>.lua` from the runtimepath: the client config that setup() uses (cmd
-- `racelens lsp`, Java files, root by racelens.toml or .git, the `racelens` settings, the
-- handlers and lens commands, code lenses kept fresh), plus the :Racelens* commands and
-- `racelens:` documents. Override any key with `vim.lsp.config('racelens', { ... })`.
return require('racelens').lsp_config()
