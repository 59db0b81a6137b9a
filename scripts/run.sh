#!/usr/bin/env bash
# Sets up and runs the service on its embedded default (SQLite file ./sitescan.db, port 8080,
# one in-process scan worker with a local Chromium). Extra arguments go to `sitescan serve`.
# The first start makes the secret key file ./sitescan.db.key (owner-only) beside the database,
# so webhooks, chat alerts and site secrets work with no flag; keep it with the database.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release
exec ./target/release/sitescan serve "$@"
