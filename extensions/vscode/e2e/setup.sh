#!/bin/sh
# Installs code-server 4.100.3 (VS Code 1.100.3 in the browser; the last
# release for Node 20) and playwright-core into $CS without GitHub: every
# install script is skipped, the native modules are rebuilt here, and
# @vscode/ripgrep gets Debian's rg instead of its download.
# Needs (Debian): ripgrep chromium libkrb5-dev libx11-dev libxkbfile-dev
# libsecret-1-dev pkg-config build-essential, Node 20 and npm.
set -eu
CS=${CS:-/tmp/mpidbg-e2e/cs}
mkdir -p "$CS" && cd "$CS"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts code-server@4.100.3 playwright-core@1.65.1
npm rebuild argon2
cd node_modules/code-server/lib/vscode
npm install --no-audit --no-fund --ignore-scripts --omit=dev # postinstall.sh's vscode_install, without scripts
mkdir -p node_modules/@vscode/ripgrep/bin
cp /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg
# node-pty's own post-install step fails (it fetches node-gyp for an IDE
# file); pty.node is built all the same, which the tests below check
npm rebuild kerberos @parcel/watcher @vscode/spdlog native-watchdog node-pty @vscode/deviceid || true
test -f node_modules/node-pty/build/Release/pty.node
test -f node_modules/@vscode/spdlog/build/Release/spdlog.node
ln -sfn node_modules node_modules.asar # the rest of postinstall.sh
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
(cd extensions && npm install --no-audit --no-fund --ignore-scripts --omit=dev)
echo "code-server: $CS/node_modules/.bin/code-server"
