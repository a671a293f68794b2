#!/usr/bin/env bash
# Installs what the browser tests need on Debian or Ubuntu, idempotently:
# Chromium (WebGPU through Dawn; on a machine without a GPU, on
# SwiftShader's CPU Vulkan), Node.js and npm, and the driver's npm
# packages (web/test: puppeteer-core, pinned by its package-lock.json).
set -euo pipefail
. "$(dirname "$0")/apt-install.sh"
cd "$(dirname "$0")/.."

chromium=${CHROMIUM:-/usr/bin/chromium}
need=()
[ -x "$chromium" ] || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)

apt_install setup-web "${need[@]}"

# npm ci only when the lock file changed since the last install (a copy of
# it in node_modules marks what was installed).
lock=web/test/package-lock.json
stamp=web/test/node_modules/.wgcompute-lock.json
if ! cmp -s "$lock" "$stamp"; then
  (cd web/test && npm ci --no-audit --no-fund --loglevel=error)
  cp "$lock" "$stamp"
fi
