#!/usr/bin/env bash
# `make container-test`: builds the image users get (the Dockerfile's `runtime` stage) with no
# registry and no Docker engine, then checks it by running it.
#
#  1. A Debian 12 base from the package archive with mmdebstrap, cached in $CACHE between runs
#     and stored as debian:bookworm-slim (only when no such image is in local storage already).
#  2. The release binary built on this host (Debian 12, the image's glibc), without its line
#     tables, put in the image by `buildah bud --build-arg BINARY=host`: the rust build image
#     cannot be pulled here.
#  3. In the image, with buildah's chroot isolation on the host's network: the user is the
#     non-root one; `serve` answers /readyz (also from inside, as the HEALTHCHECK asks); a scan of
#     a site served on this host completes through the REST API; the SQLite file and its key live
#     in the /data volume and survive a restart; then the compose file's fleet on the local
#     PostgreSQL: `migrate`, `serve --no-workers` and a `worker` in separate containers.
#
# Needs root, the local PostgreSQL at 127.0.0.1:5432 (scripts/services.sh) and about 1.5 GB of
# disk. Installs buildah and mmdebstrap with apt-get when missing.
#   CACHE=/var/cache/sitescan-container   where the base tarball is kept (delete it to refresh)
#   IMAGE=localhost/sitescan:test         the tag of the image built
#   KEEP=1                                keep the image afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${CACHE:-/var/cache/sitescan-container}
IMAGE=${IMAGE:-localhost/sitescan:test}
BASE=docker.io/library/debian:bookworm-slim
PG_ADMIN=${SITESCAN_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
PG_DB=sitescan_container
export BUILDAH_ISOLATION=chroot

step() { printf '\n== %s\n' "$*"; }
ok() { printf 'ok: %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root: buildah's chroot isolation needs it"
need=()
command -v buildah >/dev/null 2>&1 || need+=(buildah)
command -v mmdebstrap >/dev/null 2>&1 || need+=(mmdebstrap)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
if [ ${#need[@]} -gt 0 ]; then
  echo "container-test: installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/sitescan-container.XXXXXX)
pids=()
containers=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for c in "${containers[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  [ "${KEEP:-0}" = 1 ] || buildah rmi "$IMAGE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# ---------------------------------------------------------------------------------------------
step "base image ($BASE)"
if [ -n "$(buildah images -q "$BASE" 2>/dev/null)" ]; then
  ok "$BASE is in local storage already"
else
  mkdir -p "$CACHE"
  tarball="$CACHE/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    echo "mmdebstrap: Debian 12 minbase from deb.debian.org (about a minute)"
    mmdebstrap --variant=minbase --mode=root --format=tar --quiet \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
      bookworm "$tarball.part" \
      "deb http://deb.debian.org/debian bookworm main" \
      "deb http://deb.debian.org/debian bookworm-updates main" \
      "deb http://deb.debian.org/debian-security bookworm-security main"
    mv "$tarball.part" "$tarball"
  else
    echo "cached: $tarball (from $(date -r "$tarball" +%F); delete it to refresh)"
  fi
  c=$(buildah from scratch)
  buildah add --quiet "$c" "$tarball" / >/dev/null
  buildah config --cmd '["bash"]' "$c"
  buildah commit --quiet "$c" "$BASE" >/dev/null
  buildah rm "$c" >/dev/null
  ok "made $BASE from $(basename "$tarball")"
fi

# ---------------------------------------------------------------------------------------------
step "release binary and image ($IMAGE)"
bash scripts/setup.sh >/dev/null
cargo build --release --locked --bin sitescan
mkdir -p target/container
objcopy --strip-debug target/release/sitescan target/container/sitescan
# Docker's image format: OCI images have no HEALTHCHECK.
buildah bud --quiet --pull=never --layers --format docker --build-arg BINARY=host --target runtime -t "$IMAGE" . >/dev/null
size=$(buildah images --format '{{.Size}}' "$IMAGE" | head -1)
ok "built $IMAGE from ./Dockerfile (target runtime, BINARY=host): $size"
health=$(buildah inspect --type image --format '{{.Docker.Config.Healthcheck.Test}}' "$IMAGE")
volumes=$(buildah inspect --type image --format '{{.Docker.Config.Volumes}}' "$IMAGE")
case "$health" in *readyz*) ;; *) fail "the image has no HEALTHCHECK on /readyz ($health)" ;; esac
case "$volumes" in */data*) ;; *) fail "the image declares no /data volume ($volumes)" ;; esac
ok "its config: HEALTHCHECK $health, volumes $volumes"

ctr=$(buildah from --pull=never "$IMAGE")
containers+=("$ctr")
in_image() { buildah run --network host "$@"; }

# ---------------------------------------------------------------------------------------------
step "the image's user"
uid=$(in_image "$ctr" -- id -u)
[ "$uid" = 10001 ] || fail "the image runs as uid $uid, not the non-root 10001"
ok "runs as uid 10001 ($(in_image "$ctr" -- id -un))"
in_image "$ctr" -- sitescan --version

# A site to scan, served on this host.
site_port=$(free_port)
python3 -m http.server "$site_port" --bind 127.0.0.1 --directory tests/fixtures/sites/shop >"$work/site.log" 2>&1 &
pids+=($!)
site="http://127.0.0.1:$site_port/"

# The image's /data VOLUME: buildah keeps it for the container across runs (as `docker restart`
# keeps a container's volume), in the container's own storage on this host; found after the first run.
volume_of() {
  local root cid
  root=$(buildah info --format '{{.store.GraphRoot}}')
  cid=$(buildah inspect --format '{{.ContainerID}}' "$1")
  find "$root/overlay-containers/$cid/userdata/buildah-volumes" -mindepth 1 -maxdepth 1 -type d | head -1
}

# serve LOG ARGS...: runs `sitescan serve` in the image in the background; sets $serve_pid.
serve() {
  local log=$1; shift
  # buildah itself in the background (not a function's subshell): $! is then the pid SIGTERM goes to.
  buildah run --network host "$ctr" -- sitescan serve "$@" >"$log" 2>&1 &
  serve_pid=$!
  pids+=("$serve_pid")
}
wait_ready() {
  local url=$1 log=$2
  for _ in $(seq 1 120); do
    curl -fsS "$url/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  cat "$log" >&2
  fail "$url/readyz did not answer in 60 s"
}
# stop PID [URL]: SIGTERM to `buildah run` (which passes it on), then waits for it to end and,
# given a URL, for the server inside to stop answering there.
stop() {
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 60); do
    if ! kill -0 "$1" 2>/dev/null; then
      [ -z "${2:-}" ] && return 0
      curl -fsS "$2/readyz" >/dev/null 2>&1 || return 0
    fi
    sleep 0.5
  done
  fail "the process did not stop within 30 s of SIGTERM"
}
# scan API TOKEN: queues a scan of $site, waits for it to end, prints its id; fails unless completed.
scan() {
  local api=$1 token=$2 id status body
  body=$(curl -fsS -X POST "$api/api/v1/scans" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d "{\"target\": \"$site\"}")
  id=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])' <<<"$body")
  # Polled every 2 s: the API allows 60 requests a minute a token.
  for _ in $(seq 1 120); do
    status=$(curl -fsS "$api/api/v1/scans/$id" -H "Authorization: Bearer $token" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["scan"]["status"])')
    case $status in
      completed) echo "$id"; return 0 ;;
      queued|running) sleep 2 ;;
      *) curl -sS "$api/api/v1/scans/$id" -H "Authorization: Bearer $token" >&2; fail "scan $id ended $status" ;;
    esac
  done
  fail "scan $id still $status after 240 s"
}
summary() {
  curl -fsS "$1/api/v1/scans/$3" -H "Authorization: Bearer $2" \
    | python3 -c 'import json,sys; s=json.load(sys.stdin)["scan"]; c=s.get("findings_count") or {}; print(s["status"] + ", " + str(sum(c.values())) + " findings (" + ", ".join(f"{k} {v}" for k, v in c.items() if v) + ")")'
}

# ---------------------------------------------------------------------------------------------
step "embedded default: SQLite in /data"
token=$(in_image "$ctr" -- sitescan token create --org acme 2>/dev/null | tail -1)
[ -n "$token" ] || fail "token create printed nothing"
port=$(free_port)
api="http://127.0.0.1:$port"
serve "$work/serve1.log" --listen "127.0.0.1:$port" --allow-target 127.0.0.1/32
wait_ready "$api" "$work/serve1.log"
ok "serve answers $api/readyz"
in_image "$ctr" -- curl -fsS "$api/readyz" >/dev/null || fail "the HEALTHCHECK's curl fails inside the image"
ok "the HEALTHCHECK command (curl /readyz) passes inside the image"
id=$(scan "$api" "$token")
first=$(summary "$api" "$token" "$id")
ok "scan $id of $site through the REST API: $first"
data=$(volume_of "$ctr")
[ -n "$data" ] && [ -s "$data/sitescan.db" ] || fail "no SQLite file in the /data volume"
db_owner=$(stat -c %u "$data/sitescan.db")
key_mode=$(stat -c %a "$data/sitescan.db.key" 2>/dev/null || echo missing)
[ "$db_owner" = 10001 ] || fail "sitescan.db is owned by uid $db_owner"
[ "$key_mode" = 600 ] || fail "the key beside the database is $key_mode, not 600"
ok "the /data volume ($data) holds sitescan.db ($(du -h "$data/sitescan.db" | cut -f1), uid 10001) and sitescan.db.key (mode 600)"
grep -q 'webhook delivery is off' "$work/serve1.log" && fail "serve says webhook delivery is off"
ok "serve started with every feature on (no 'delivery is off')"
stop "$serve_pid" "$api"
ok "serve stopped on SIGTERM"

serve "$work/serve2.log" --listen "127.0.0.1:$port" --allow-target 127.0.0.1/32
wait_ready "$api" "$work/serve2.log"
again=$(summary "$api" "$token" "$id")
[ "$again" = "$first" ] || fail "after a restart the scan reads '$again', before '$first'"
ok "after a restart the same token reads scan $id: $again"
stop "$serve_pid" "$api"

# ---------------------------------------------------------------------------------------------
step "fleet: PostgreSQL on this host, as deploy/compose.yaml runs it"
bash scripts/services.sh >/dev/null 2>&1 || true
psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" -c "CREATE DATABASE $PG_DB" >/dev/null
pg_url="postgres://postgres@127.0.0.1:5432/$PG_DB"
key="$work/fleet.key"
head -c 32 /dev/urandom | base64 >"$key"
chmod 644 "$key"
fleet=(--network host -v "$key:/run/secrets/sitescan-key:ro" -e "SITESCAN_DATABASE_URL=$pg_url"
  -e SITESCAN_SECRET_KEY_FILE=/run/secrets/sitescan-key)
pg() { buildah run "${fleet[@]}" "$@"; }
pg "$ctr" -- sitescan migrate
ok "migrate on $pg_url"
token=$(pg "$ctr" -- sitescan token create --org acme 2>/dev/null | tail -1)
port=$(free_port)
api="http://127.0.0.1:$port"
buildah run "${fleet[@]}" "$ctr" -- sitescan serve --no-workers --listen "127.0.0.1:$port" --allow-target 127.0.0.1/32 >"$work/api.log" 2>&1 &
api_pid=$!
pids+=("$api_pid")
wait_ready "$api" "$work/api.log"
ok "serve --no-workers answers /readyz"
worker_ctr=$(buildah from --pull=never "$IMAGE")
containers+=("$worker_ctr")
buildah run "${fleet[@]}" "$worker_ctr" -- sitescan worker --workers 1 --pages-per-browser 4 --allow-target 127.0.0.1/32 >"$work/worker.log" 2>&1 &
worker_pid=$!
pids+=("$worker_pid")
id=$(scan "$api" "$token")
ok "scan $id claimed by the worker container: $(summary "$api" "$token" "$id")"
stop "$worker_pid"
ok "worker stopped on SIGTERM"
stop "$api_pid" "$api"
ok "serve --no-workers stopped on SIGTERM"
psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $PG_DB WITH (FORCE)" >/dev/null

step "passed"
echo "image $IMAGE ($size): non-root uid 10001, /readyz, HEALTHCHECK, a scan on SQLite in /data"
echo "that survives a restart, and migrate + serve --no-workers + worker on PostgreSQL"
