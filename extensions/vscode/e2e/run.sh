#!/bin/sh
# The extension in a real VS Code (code-server, driven by headless
# Chromium): a clean clone of this repository built, build/mpidbg.vsix
# installed, F5 on a launch configuration of .vscode/launch.json, and the
# stop checked (f5.mjs). Screenshots, result.json and the adapter's log
# go to $E2E/shots. Not part of make test: code-server's install needs
# the workarounds of setup.sh. Usage: run.sh [CONFIGURATION-NAME-PREFIX]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
E2E=${E2E:-/tmp/mpidbg-e2e}
CS=${CS:-$E2E/cs}
PORT=${PORT:-8765}
CONFIG=${1:-mpidbg: planted bug}
export CS
mkdir -p "$E2E" && cd "$E2E"
[ -x "$CS/node_modules/.bin/code-server" ] || "$HERE/setup.sh"
rm -rf repo shots ud ext && mkdir -p shots ud/User ext
git clone -q "$ROOT" repo
(cd repo && PATH=$PATH:/usr/local/go/bin make -s build && make -s vscode)
"$CS/node_modules/.bin/code-server" --user-data-dir "$E2E/ud" --extensions-dir "$E2E/ext" \
	--install-extension "$E2E/repo/build/mpidbg.vsix" --force
cat > ud/User/settings.json <<JSON
{
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "mpidbg.logFile": "$E2E/shots/dap.log",
  "mpidbg.trace": true
}
JSON
"$CS/node_modules/.bin/code-server" --bind-addr "127.0.0.1:$PORT" --auth none \
	--user-data-dir "$E2E/ud" --extensions-dir "$E2E/ext" \
	--disable-telemetry --disable-update-check --disable-workspace-trust "$E2E/repo" > code-server.log 2>&1 &
CSPID=$!
trap 'kill $CSPID 2>/dev/null' EXIT
for i in $(seq 60); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 1; done
SHOTS="$E2E/shots" node "$HERE/f5.mjs" "http://127.0.0.1:$PORT/?folder=$E2E/repo" "$CONFIG"
