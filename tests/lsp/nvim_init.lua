-- SPDX-License-Identifier: MIT
-- Neovim 0.7's own LSP client on `rooflint lsp` (tests/cli/lsp_neovim.sh):
-- attaches the server to $LSP_FILE, waits for its diagnostics, asks for a
-- hover and the code actions of line 8, applies the first (the fix-it),
-- waits for the diagnostics of the edited text, and writes what it got to
-- $LSP_OUT as JSON.  0.7 has no vim.lsp.start: start_client and
-- buf_attach_client.
local out = {}

local function diagnostics(buf)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(list, { line = d.lnum, col = d.col, severity = d.severity,
                         code = lsp.code or vim.NIL, message = d.message })
  end
  table.sort(list, function(a, b)
    if a.line ~= b.line then return a.line < b.line end
    return tostring(a.code) < tostring(b.code)
  end)
  return list
end

local function has_code(buf, code)
  for _, d in ipairs(diagnostics(buf)) do
    if d.code == code then return true end
  end
  return false
end

local function run()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("LSP_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = "rooflint",
    cmd = { os.getenv("ROOFLINT"), "lsp" },
    root_dir = vim.fn.getcwd(),
  })
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  out.waited = vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.diagnostics = diagnostics(buf)
  local doc = { uri = vim.uri_from_bufnr(buf) }
  local hover = client.request_sync("textDocument/hover",
    { textDocument = doc, position = { line = 7, character = 2 } }, 5000, buf)
  out.hover = hover.result.contents.value
  local actions = client.request_sync("textDocument/codeAction", {
    textDocument = doc,
    range = { start = { line = 7, character = 6 }, ["end"] = { line = 7, character = 6 } },
    context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, 7) },
  }, 5000, buf)
  out.actions = {}
  for _, a in ipairs(actions.result) do table.insert(out.actions, a.title) end
  vim.lsp.util.apply_workspace_edit(actions.result[1].edit, client.offset_encoding)
  out.line7 = vim.api.nvim_buf_get_lines(buf, 6, 7, false)[1]
  out.fixed = vim.wait(10000, function() return not has_code(buf, "stray-fp32") end, 20)
  out.after = diagnostics(buf)
  client.stop()
end

local ok, err = pcall(run)
if not ok then out.error = tostring(err) end
local f = io.open(os.getenv("LSP_OUT"), "w")
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd("qall!")
