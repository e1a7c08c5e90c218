#!/usr/bin/env bash
# Runs the jstk command of the GitHub Action (action.yml) with --format github, so that each
# finding becomes an annotation on its file and line. JSTK_ARGS holds one argument per line,
# passed as it is; the step fails as jstk does (1 findings, 2 could not run).
set -uo pipefail
case "${JSTK_COMMAND:-}" in
  "" | mcp | tools | -*)
    echo "::error::jstk: the action runs a checking command (validate, lint, diff, test, coverage, ...), not '${JSTK_COMMAND:-}'" >&2
    exit 2 ;;
esac
args=()
while IFS= read -r line; do
  line=${line%$'\r'}
  [ -n "$line" ] && args+=("$line")
done <<< "${JSTK_ARGS:-}"
jstk "$JSTK_COMMAND" --format github ${args[@]+"${args[@]}"}
