#!/bin/sh
# lsp-nvim-check.sh: a real editor talks to jstk lsp. Builds jstk, writes a schema and an
# invalid JSON file into a temporary workspace, opens the file in headless Neovim (Debian's
# neovim, 0.7 or later: its built-in LSP client) with jstk lsp as the language server, waits
# for the diagnostics and prints them as Neovim holds them, then asks for a hover. Exits 1
# when no diagnostic arrives.
set -eu
cd "$(dirname "$0")/.."
command -v nvim >/dev/null || { echo "lsp-nvim-check: nvim is not installed (apt-get install neovim)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/jstk" ./cmd/jstk
mkdir "$work/ws"
cat >"$work/ws/schema.json" <<'JSON'
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Name", "description": "Who orders."},
    "quantity": {"type": "integer", "minimum": 1}
  },
  "required": ["name", "quantity"],
  "additionalProperties": false
}
JSON
cat >"$work/ws/jstk.json" <<'JSON'
{"schemas": {"schema.json": "orders/*.json"}}
JSON
mkdir "$work/ws/orders"
cat >"$work/ws/orders/order.json" <<'JSON'
{
  "name": "Ada",
  "quantity": 0,
  "colour": "red"
}
JSON
cat >"$work/check.lua" <<LUA
local id = vim.lsp.start_client({
  name = "jstk",
  cmd = { "$work/jstk", "lsp" },
  root_dir = "$work/ws",
})
vim.cmd("edit $work/ws/orders/order.json")
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, id)
local got = vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
local out = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(out, string.format("order.json:%d:%d-%d:%d: [%s] %s (%s)", d.lnum + 1, d.col + 1,
    d.end_lnum + 1, d.end_col + 1, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ""),
    d.message, vim.diagnostic.severity[d.severity]))
end
if not got then table.insert(out, "NO DIAGNOSTICS within 15 s") end
local client = vim.lsp.get_client_by_id(id)
local res = client.request_sync("textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 1, character = 4 },
}, 5000, buf)
if res and res.result then
  table.insert(out, "hover on \"name\": " .. res.result.contents.value:gsub("\n+", " | "))
end
vim.fn.writefile(out, "$work/out.txt")
vim.lsp.stop_client(id)
vim.cmd(got and "qall!" or "cquit!")
LUA
status=0
nvim --headless -u NONE -i NONE -c "luafile $work/check.lua" >/dev/null 2>&1 || status=$?
echo "Neovim $(nvim --version | head -1 | cut -d' ' -f2), jstk lsp: diagnostics of orders/order.json"
cat "$work/out.txt" 2>/dev/null || echo "(nothing written)"
exit $status
