#!/usr/bin/env bash
# Fuzzes the served OpenAPI document with schemathesis (PyPI, in a venv under .tools/, which git
# ignores): a real `sitescan serve` on 127.0.0.1 with a fresh SQLite database and a valid token,
# generous rate limits so the fuzzer meets the handlers rather than the limiter. Fails on any 5xx,
# any response that violates the schema (status, content type, headers, body), or fewer than
# SCHEMATHESIS_MIN_REQUESTS (default 1000) requests served (counted by the server's /metrics).
#
#   bash scripts/schemathesis.sh                   # what scripts/test.sh runs
#   SCHEMATHESIS_EXAMPLES=2000 bash scripts/schemathesis.sh   # a longer run
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
EXAMPLES="${SCHEMATHESIS_EXAMPLES:-150}"
MIN_REQUESTS="${SCHEMATHESIS_MIN_REQUESTS:-1000}"
VENV=.tools/schemathesis-venv
TARGET_DIR="${CARGO_TARGET_DIR:-target}"

if [ ! -x "$VENV/bin/st" ] || ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "schemathesis: installing schemathesis $VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$VERSION"
fi

cargo build -q --bin sitescan
BIN="$TARGET_DIR/debug/sitescan"
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

export SITESCAN_DATABASE_URL="sqlite://$WORK/sitescan.db?mode=rwc"
unset RUST_LOG
TOKEN="$("$BIN" token create --org fuzz --name schemathesis 2>/dev/null)"
"$BIN" serve --no-workers --listen 127.0.0.1:0 --rate-limit-per-second 1000000 --rate-limit-per-minute 60000000 \
  >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
BASE=""
for _ in $(seq 1 100); do
  BASE="$(grep -o 'listening on http://[0-9.:]*' "$WORK/serve.log" | head -n1 | sed 's/listening on //' || true)"
  [ -n "$BASE" ] && break
  sleep 0.1
done
[ -n "$BASE" ] || { echo "schemathesis: the server did not start"; cat "$WORK/serve.log"; exit 1; }

# A few real scans so reads have something to return.
for t in example.com example.org example.net; do
  curl -s -o /dev/null -X POST "$BASE/api/v1/scans" -H "Authorization: Bearer $TOKEN" -d "{\"target\":\"$t\"}"
done

served() {
  curl -s "$BASE/metrics" | awk '/^sitescan_http_requests_total\{/ && $0 !~ /metrics/ { s += $NF } END { printf "%d", s }'
}
fivexx() {
  curl -s "$BASE/metrics" | awk '/^sitescan_http_requests_total\{/ && /status="5/ { s += $NF } END { printf "%d", s }'
}
before="$(served)"

fuzz() {
  "$VENV/bin/st" run "$BASE/docs/api/openapi" --url "$BASE" \
    -H "Authorization: Bearer $TOKEN" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --max-examples "$EXAMPLES" --seed 20261122 --workers "$1" --suppress-health-check all --no-color \
    --request-timeout 30 --generation-database none --report junit --report-dir "$WORK/report" 2>&1 | tee "$WORK/st.out"
  return "${PIPESTATUS[0]}"
}
status=0
fuzz 2 || status=$?
# Hypothesis sometimes trips over itself with two workers ("AST constructor recursion depth
# mismatch", a Runtime Error inside the tool, not a finding about the server): run once more on
# one worker. Real failures (a FAILURES section) are never retried.
if [ "$status" -ne 0 ] && grep -q "Runtime Error" "$WORK/st.out" && ! grep -q "= FAILURES =" "$WORK/st.out"; then
  echo "schemathesis: the tool failed internally (not a finding); running it again on one worker"
  status=0
  fuzz 1 || status=$?
fi

after="$(served)"
requests=$((after - before))
errors="$(fivexx)"
internal="$(grep -c '"internal error"\|internal error' "$WORK/serve.log" || true)"
echo "schemathesis: $requests requests served, $errors answered 5xx, $internal internal-error log lines (schemathesis exit $status)"
if [ "$status" -ne 0 ]; then
  echo "schemathesis: failures found (see above)"; tail -n 20 "$WORK/serve.log"; exit 1
fi
if [ "$errors" -ne 0 ] || [ "$internal" -ne 0 ]; then
  echo "schemathesis: the server answered 5xx"; grep -i 'internal' "$WORK/serve.log" | head -n 20; exit 1
fi
if [ "$requests" -lt "$MIN_REQUESTS" ]; then
  echo "schemathesis: only $requests requests (want >= $MIN_REQUESTS)"; exit 1
fi
echo "schemathesis: $requests passed, 0 failed"
