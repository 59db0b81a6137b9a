#!/usr/bin/env bash
# Sets up and runs the whole test suite: once on SQLite (the embedded default), once on
# PostgreSQL (127.0.0.1:5432, database `test`). This is what `.ci/run` calls.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/services.sh
# services.sh started Redis: the Redis cases must run, never pass empty.
export SITESCAN_TEST_REQUIRE_REDIS=1

run() {
  if command -v cargo-nextest >/dev/null 2>&1; then
    cargo nextest run --workspace --no-fail-fast "$@"
  else
    cargo test --workspace --no-fail-fast "$@"
  fi
}

# clippy, warnings as errors (its settings: clippy.toml). A toolchain without clippy skips it.
if cargo clippy --version >/dev/null 2>&1; then
  echo "== clippy"
  cargo clippy --workspace --all-targets --quiet -- -D warnings
else
  echo "== clippy: skipped (not installed: rustup component add clippy)"
fi

# The benchmark (bench/, a workspace of its own) uses the library's API: it must keep compiling.
# It is checked in the main target directory, where clippy has just checked its dependencies.
echo "== the benchmark compiles"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}" cargo check --manifest-path bench/Cargo.toml --all-targets

echo "== tests on SQLite"
( unset SITESCAN_TEST_DATABASE_URL; run )

echo "== tests on PostgreSQL (the suites that touch a database)"
# Unit tests, browser/network, report-format and deploy-example suites do not touch the database:
# run once above.
( export SITESCAN_TEST_DATABASE_URL="${SITESCAN_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
  if command -v cargo-nextest >/dev/null 2>&1; then
    cargo nextest run --workspace --no-fail-fast \
      -E 'not (kind(lib) | (binary(scan) & test(/^(browser_|net_)/)) | (binary(reports) & test(/^formats::/)) | (binary(api) & test(/^deploy_cli::/)) | binary(deploy))'
  else
    run
  fi )

# Reliability steps of their own (tests/README.md "Reliability").
echo "== PostgreSQL outage (stops and restarts the local server; alone)"
(
  export SITESCAN_TEST_DATABASE_URL="${SITESCAN_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
  cargo test --test reliability -- --ignored --test-threads=1 pg_outage::
)
bash scripts/services.sh

# The fuzz harnesses ran on stable above (tests/security/fuzz.rs). The libFuzzer run needs a
# nightly build of the whole dependency tree with sanitizers (10+ minutes on 2 cores), so CI runs
# it only when asked: SITESCAN_CARGO_FUZZ=1 (FUZZ_SECONDS per target, default 10).
if [ "${SITESCAN_CARGO_FUZZ:-0}" = "1" ]; then
  echo "== cargo fuzz (short run of every target)"
  bash scripts/fuzz.sh
else
  echo "== cargo fuzz: skipped (set SITESCAN_CARGO_FUZZ=1; the harnesses ran on stable in tests/security/fuzz.rs)"
fi

echo "== schemathesis against the served OpenAPI"
bash scripts/schemathesis.sh
