#!/usr/bin/env bash
# Runs the jstk command of the GitHub Action (action.yml) with --format github, so that each
# finding becomes an annotation on its file and line. JSTK_ARGS holds one argument per line,
# passed as it is; the step fails as jstk does (1 findings, 2 could not run).
#
# command: check is jstk validate with no --schema: every file under the arguments (default:
# the repository) that has a schema, by its own $schema, jstk.json's map or the catalog, is
# validated against it.
#
# A diff without --check reports and never fails the step: its breaking changes are
# annotated as warnings, not errors, since an error annotation on a green step says
# something that is not so.
set -uo pipefail
command=${JSTK_COMMAND:-}
case "$command" in
  "" | mcp | tools | fetch | -*)
    echo "::error::jstk: the action runs a checking command (check, validate, lint, diff, test, coverage, ...), not '${JSTK_COMMAND:-}'" >&2
    exit 2 ;;
  check) command=validate ;;
esac
args=()
check=false
while IFS= read -r line; do
  line=${line%$'\r'}
  [ -n "$line" ] || continue
  args+=("$line")
  case "$line" in
    --check | -check | --check=true | -check=true | --check=1 | -check=1) check=true ;;
    --check=false | -check=false | --check=0 | -check=0) check=false ;;
  esac
done <<< "${JSTK_ARGS:-}"
if [ "$command" = diff ] && [ "$check" = false ]; then
  # Report only: the same annotations, as warnings; the exit status is jstk's.
  jstk "$command" --format github ${args[@]+"${args[@]}"} | sed -e 's/^::error /::warning /' -e 's/^::error::/::warning::/'
  exit "${PIPESTATUS[0]}"
fi
jstk "$command" --format github ${args[@]+"${args[@]}"}
