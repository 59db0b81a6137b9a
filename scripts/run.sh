#!/usr/bin/env bash
# Sets up and runs the service on its embedded default (SQLite file ./sitescan.db, port 8080,
# one in-process scan worker with a local Chromium). Extra arguments go to `sitescan serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
exec ./target/release/sitescan serve "$@"
