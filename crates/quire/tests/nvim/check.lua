-- Driven by tests/lsp_nvim.rs: Neovim's built-in LSP client attaches to `quire lsp`, goes to a
-- definition, and renames a file with the server's willRenameFiles edits, then writes all.
-- Works with Neovim 0.7 (Debian bookworm) and later. Writes OK or FAIL and a log to $OUT.
local bin, root, out = os.getenv('QUIRE_BIN'), os.getenv('KB'), os.getenv('OUT')
local log = {}

local function finish(ok, message)
  local f = io.open(out, 'w')
  f:write((ok and 'OK' or 'FAIL') .. '\n' .. table.concat(log, '\n') .. '\n' .. (message or '') .. '\n')
  f:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/notes/a.md'))
  local id = vim.lsp.start_client({ cmd = { bin, 'lsp' }, root_dir = root, name = 'quire' })
  assert(id, 'the client did not start')
  vim.lsp.buf_attach_client(0, id)
  local client
  assert(vim.wait(30000, function()
    client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.initialized
  end, 50), 'the client did not initialize')
  table.insert(log, 'attached: ' .. client.name)

  -- Go to the definition of [[hub#Next Steps]] (line 3, on "Next").
  vim.api.nvim_win_set_cursor(0, { 3, 12 })
  vim.lsp.buf.definition()
  assert(vim.wait(15000, function()
    return vim.api.nvim_buf_get_name(0):match('/hub%.md$') ~= nil
  end, 50), 'definition did not open hub.md: ' .. vim.api.nvim_buf_get_name(0))
  local cursor = vim.api.nvim_win_get_cursor(0)
  table.insert(log, 'definition: ' .. vim.api.nvim_buf_get_name(0) .. ' line ' .. cursor[1])

  -- Rename hub.md to archive/hub2.md: the server's edits, then the move, then :wa.
  local old, new = root .. '/hub.md', root .. '/archive/hub2.md'
  local response = client.request_sync('workspace/willRenameFiles', {
    files = { { oldUri = vim.uri_from_fname(old), newUri = vim.uri_from_fname(new) } },
  }, 15000, 0)
  assert(response and response.result, 'no willRenameFiles answer: ' .. vim.inspect(response))
  vim.lsp.util.apply_workspace_edit(response.result, client.offset_encoding or 'utf-16')
  vim.fn.mkdir(root .. '/archive', 'p')
  vim.lsp.util.rename(old, new)
  vim.cmd('wa')
  table.insert(log, 'renamed: ' .. new)
  finish(true)
end)
if not ok then
  finish(false, tostring(err))
end
