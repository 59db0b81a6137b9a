#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for FUZZ_SECONDS (default 10) each, when cargo-fuzz and a
# nightly toolchain are installed; otherwise says so and exits 0 (the same harnesses run on stable
# as tests/security/fuzz.rs, over fuzz/corpus/ and generated mutations, in every test run).
#
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh        # the documented longer run
#   cargo +nightly fuzz run sitemap              # one target, until stopped
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECONDS_EACH="${FUZZ_SECONDS:-10}"
if ! command -v cargo-fuzz >/dev/null 2>&1 || ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: cargo-fuzz or the nightly toolchain is not installed: skipped (tests/security/fuzz.rs ran the harnesses on stable)"
  exit 0
fi
total=0
for target in $(cargo +nightly fuzz list); do
  mkdir -p "corpus/$target"
  out="$(cargo +nightly fuzz run "$target" "corpus/$target" -- -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=65536 2>&1)" || {
    echo "$out" | tail -n 40
    echo "fuzz: $target failed (the crashing input is under fuzz/artifacts/$target/)"
    exit 1
  }
  runs="$(echo "$out" | grep -o 'Done [0-9]* runs' | grep -o '[0-9]*' | tail -n1)"
  echo "fuzz: $target: ${runs:-0} runs in ${SECONDS_EACH}s"
  total=$((total + ${runs:-0}))
done
echo "fuzz: $total runs, 0 failed"
