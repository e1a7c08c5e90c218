#!/bin/sh
# run.sh: jstk lsp, vscode-json-languageservice 5.x and yaml-language-server 2.x on every
# required case of the JSON-Schema-Test-Suite, each case's schema associated with the instance
# opened as a document (compare.mjs says how). Builds jstk, installs the two npm packages into a
# temporary directory (LSP_COMPARE_MODULES=DIR reuses a directory that has them), prints a table
# per draft. LSP_COMPARE_VERBOSE=1 also prints every wrong verdict. Not run by CI.
set -eu
cd "$(dirname "$0")/../.."
suite=${JSTK_SUITE:-../shared/corpora/JSON-Schema-Test-Suite}
[ -d "$suite/tests" ] || { echo "run.sh: no JSON-Schema-Test-Suite at $suite (set JSTK_SUITE)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/jstk" ./cmd/jstk
modules=${LSP_COMPARE_MODULES:-}
if [ -z "$modules" ]; then
  (cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent vscode-json-languageservice@5 yaml-language-server@2 >/dev/null)
  modules=$work/node_modules
fi
node scripts/lsp-compare/compare.mjs "$work/jstk" "$suite" "$modules"
