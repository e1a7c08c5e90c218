#!/usr/bin/env bash
# Tests action/run.sh with a stand-in jstk that prints its arguments and an annotation of
# each level: which command and arguments the action runs, and which annotations a
# report-only diff keeps. Run by .ci/run (action_checks); needs nothing but bash and sed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cat > "$bin/jstk" <<'FAKE'
#!/usr/bin/env bash
echo "args: $*"
echo "::error file=a.json,line=1,col=2,title=x::an error"
echo "::error::a bare error"
echo "::warning file=a.json,line=1::a warning"
exit "${FAKE_EXIT:-0}"
FAKE
chmod +x "$bin/jstk"
fail=0
run() { # expected exit, command, args (one per line); prints the output
  local want=$1 rc=0; shift
  out=$(PATH="$bin:$PATH" JSTK_COMMAND=$1 JSTK_ARGS=${2:-} "$here/run.sh" 2>&1) || rc=$?
  if [ "$rc" != "$want" ]; then echo "FAIL: command $1 args ${2:-}: exit $rc, want $want"; fail=1; fi
}
has() { if ! grep -qxF -- "$1" <<< "$out"; then echo "FAIL: no line '$1' in:"; sed 's/^/  /' <<< "$out"; fail=1; fi; }
lacks() { if grep -q -- "$1" <<< "$out"; then echo "FAIL: a line matching '$1' in:"; sed 's/^/  /' <<< "$out"; fail=1; fi; }

# command: check validates every file with a schema: jstk validate, no --schema.
run 0 check
has "args: validate --format github"
run 0 check $'src\n'
has "args: validate --format github src"
# A report-only diff: warnings, no error annotation, jstk's exit status.
run 0 diff $'old.json\nnew.json'
has "args: diff --format github old.json new.json"
has "::warning file=a.json,line=1,col=2,title=x::an error"
has "::warning::a bare error"
has "::warning file=a.json,line=1::a warning"
lacks "^::error"
FAKE_EXIT=2 run 2 diff $'old.json\nnew.json'
# With --check, errors stay errors.
for flag in --check -check --check=true; do
  run 0 diff "$flag"$'\nold.json\nnew.json'
  has "::error file=a.json,line=1,col=2,title=x::an error"
done
run 0 diff $'--check=false\nold.json\nnew.json'
lacks "^::error"
# Other commands are untouched.
FAKE_EXIT=1 run 1 lint $'schemas\r'
has "args: lint --format github schemas"
has "::error::a bare error"
# Not a checking command.
for c in "" mcp tools fetch --help; do
  run 2 "$c"
  has "::error::jstk: the action runs a checking command (check, validate, lint, diff, test, coverage, ...), not '$c'"
done
[ "$fail" = 0 ] && echo "action/run.sh: all checks passed"
exit "$fail"
