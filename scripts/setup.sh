#!/usr/bin/env bash
# Installs what sitescan needs on a fresh Debian machine with Rust, Node.js and root:
# Chromium, protoc, and the in-page npm package (axe-core). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ! -f browser/node_modules/axe-core/axe.min.js ]; then
  echo "setup: npm ci in browser/"
  (cd browser && npm ci --no-audit --no-fund --ignore-scripts)
fi
