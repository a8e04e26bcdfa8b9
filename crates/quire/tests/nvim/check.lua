-- Driven by tests/lsp_nvim.rs: Neovim's built-in LSP client attaches to `quire lsp`, goes to a
-- definition, sees a broken link's diagnostic clear when the page it names is moved into place
-- behind the server's back (as a shell would), and renames a page and an image with the
-- server's willRenameFiles edits, then writes all.
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

  -- notes/later.md links to ideas/plan, which is not there yet: one diagnostic. Then
  -- plan.md is moved there on disk, with no word to the server: the diagnostic clears.
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/notes/later.md'))
  local later = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(later, id)
  assert(vim.wait(15000, function()
    return #vim.diagnostic.get(later) == 1
  end, 50), 'no broken-link diagnostic: ' .. vim.inspect(vim.diagnostic.get(later)))
  table.insert(log, 'broken: ' .. vim.diagnostic.get(later)[1].message)
  vim.fn.mkdir(root .. '/ideas', 'p')
  assert(os.rename(root .. '/plan.md', root .. '/ideas/plan.md'))
  assert(vim.wait(15000, function()
    return #vim.diagnostic.get(later) == 0
  end, 50), 'the moved page was not seen: ' .. vim.inspect(vim.diagnostic.get(later)))
  table.insert(log, 'watched: the diagnostic cleared')

  -- Rename with the server's edits, then the move, then :wa.
  local function rename(old, new)
    local response = client.request_sync('workspace/willRenameFiles', {
      files = { { oldUri = vim.uri_from_fname(old), newUri = vim.uri_from_fname(new) } },
    }, 15000, 0)
    assert(response and response.result, 'no willRenameFiles answer: ' .. vim.inspect(response))
    vim.lsp.util.apply_workspace_edit(response.result, client.offset_encoding or 'utf-16')
    vim.fn.mkdir(vim.fn.fnamemodify(new, ':h'), 'p')
    vim.lsp.util.rename(old, new)
    vim.cmd('wa')
    table.insert(log, 'renamed: ' .. new)
  end
  rename(root .. '/hub.md', root .. '/archive/hub2.md')
  -- The editor asks before renaming an image too (the server registered every file).
  local filters = client.server_capabilities.workspace.fileOperations.willRename.filters
  local any_file = false
  for _, f in ipairs(filters) do
    if f.pattern.glob == '**/*' and f.pattern.matches ~= 'folder' then
      any_file = true
    end
  end
  assert(any_file, 'willRename does not cover every file: ' .. vim.inspect(filters))
  rename(root .. '/img.png', root .. '/media/photo.png')
  finish(true)
end)
if not ok then
  finish(false, tostring(err))
end
