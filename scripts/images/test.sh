#!/usr/bin/env bash
# `make images-test`: checks the images `make images` built, on this machine,
# without a registry, a daemon or the network. For each image:
#   - the config: user 65532:65532 (not root), entrypoint, OCI labels
#     org.opencontainers.image.{version,revision,source} set;
#   - /usr/share/sluice/packages.txt: present, `name=version` lines (the C++
#     images hold libc6; the gateway only ca-certificates: it is static);
#   - the binary runs under `buildah run --isolation chroot` (--help; the sink,
#     which takes no flags, refuses an empty environment naming SINK_TYPE);
#   - and again as uid 65532 in a read-only bind mount of the image's root
#     filesystem (chroot in a private mount namespace), which is what
#     `readOnlyRootFilesystem: true` and `runAsNonRoot` give on Kubernetes.
#   - With SLUICE_TEST_PG_DSN (make images-test runs under
#     scripts/with-postgres.sh): `sluice-server migrate`, read-only and
#     non-root, applies the migrations to a fresh database and exits 0, twice.
#     Then the server (auth insecure_dev on loopback) and the gateway, each from
#     its image on a read-only root as uid 65532 with the host's network:
#     GET /healthz through the gateway answers 200 SERVING; through the gateway
#     policy -> noop provider -> appeal -> approve leaves the appeal approved and
#     its grant active; the server's /metrics answers; it exits 0 on SIGTERM.
#     Its config is a host directory mounted read-only on /etc/sluice, as the
#     manifest's ConfigMap is.
#   - The sink from its image (environment only, log sink) against the dev
#     broker and the sample producer on the host: it delivers records, and
#     exits 0 on SIGTERM.
# `podman run` cannot run containers on these machines (setrlimit EPERM), so
# nothing here needs it. Not part of `make test`: it needs buildah and built
# images. Without buildah it prints one line and exits 0 (skipped).
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO="${SLUICE_IMAGE_REPO:-sluice}"
VERSION="${SLUICE_IMAGE_VERSION:-$(sed -n 's/.*kVersion\[\] = "\(.*\)";/\1/p' server/server_service.h)}"
UID_GID=65532
start=$(date +%s)

if ! command -v buildah >/dev/null; then
  echo "images-test: SKIPPED: buildah is not installed (make deps installs it)"
  exit 0
fi

failures=0
fail() { echo "  FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "  ok: $*"; }

ctrs=()
cleanup() {
  for p in ${spid:-} ${gpid:-} ${kpid:-} ${ppid_:-} ${hpid:-} ${bpid:-}; do kill -TERM "$p" 2>/dev/null; done
  for c in "${ctrs[@]}"; do buildah umount "$c" >/dev/null 2>&1; buildah rm "$c" >/dev/null 2>&1; done
  [ -n "${ro:-}" ] && rmdir "$ro" 2>/dev/null
  return 0
}
trap cleanup EXIT
ro="$(mktemp -d "${TMPDIR:-/tmp}/sluice-images-ro.XXXXXX")"

# Runs <argv...> as uid 65532 inside a read-only bind mount of <root dir>
# (chroot in a private mount namespace), with the host's network and only the
# given environment; prints output, returns the command's exit status.
# RO_BIND=<host dir>:<dir in the image> also mounts a host directory there, read-only
# (as Kubernetes mounts a ConfigMap or Secret).
# Call it in a subshell ($(...) or &): it execs timeout, which passes SIGTERM on.
run_ro() {  # <root dir> <timeout s> [NAME=value...] -- <argv...>
  local root="$1" t="$2" envs=()
  shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  exec timeout "$t" unshare -m -- sh -c 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 125
      if [ -n "$3" ]; then mount --bind -o ro "${3%%:*}" "$2${3#*:}" || exit 125; fi
      shift 3; exec "$@"' \
    run_ro "$root" "$ro" "${RO_BIND:-}" env -i "${envs[@]}" "$(command -v chroot)" --userspec="$UID_GID:$UID_GID" "$ro" "$@"
}

check_image() {  # <name> <expected exit status of the smoke run> <expected output> <argv...>
  local name="$1" want_rc="$2" want_out="$3" image="$REPO/$1:$VERSION" ctr mnt out rc
  shift 3
  echo "$image"
  if ! buildah inspect --type image "$image" >/dev/null 2>&1; then
    fail "$image not found (run make images)"
    return
  fi
  ctr="$(buildah from --quiet "$image")" || { fail "buildah from $image"; return; }
  ctrs+=("$ctr")

  user="$(buildah inspect --format '{{.OCIv1.Config.User}}' "$ctr")"
  if [ "$user" = "$UID_GID:$UID_GID" ]; then ok "user $user"; else fail "user '$user', want $UID_GID:$UID_GID"; fi
  for l in version revision source; do
    v="$(buildah inspect --format "{{index .OCIv1.Config.Labels \"org.opencontainers.image.$l\"}}" "$ctr")"
    if [ -n "$v" ] && [ "$v" != "<no value>" ]; then ok "label $l=$v"; else fail "label org.opencontainers.image.$l unset"; fi
  done

  mnt="$(buildah mount "$ctr")" || { fail "buildah mount"; return; }
  [ "$name" = sluice-gateway ] && gateway_mnt="$mnt"
  [ "$name" = sluice-sink ] && sink_mnt="$mnt"
  pk="$mnt/usr/share/sluice/packages.txt"
  if [ ! -s "$pk" ]; then
    fail "no /usr/share/sluice/packages.txt"
  elif grep -qvE '^[a-z0-9][a-z0-9.+-]*=[A-Za-z0-9.+~:-]+$' "$pk"; then
    fail "packages.txt has lines not name=version: $(grep -vE '^[a-z0-9][a-z0-9.+-]*=[A-Za-z0-9.+~:-]+$' "$pk" | head -2)"
  elif [ "$name" = sluice-gateway ]; then
    if [ "$(cut -d= -f1 "$pk")" = ca-certificates ] && [ ! -e "$mnt/usr/lib" ] && [ ! -e "$mnt/lib" ]; then
      ok "packages.txt: ca-certificates only, no libraries (static binary on scratch)"
    else fail "gateway image holds more than its binary and CA bundle"; fi
  elif grep -q '^libc6=' "$pk"; then
    ok "packages.txt: $(grep -c . "$pk") packages"
  else fail "packages.txt lacks libc6"; fi
  if grep -q "^sluice:x:$UID_GID:$UID_GID:" "$mnt/etc/passwd"; then ok "/etc/passwd names uid $UID_GID"; else fail "/etc/passwd lacks uid $UID_GID"; fi

  # buildah run now and then returns before copying a short-lived process's
  # output (seen once in ~10 runs here): an empty output is retried.
  for _ in 1 2 3; do
    out="$(timeout 30 buildah run --isolation chroot "$ctr" -- "$@" 2>&1)"; rc=$?
    [ -n "$out" ] && break
  done
  if [ "$rc" -eq "$want_rc" ] && grep -q -- "$want_out" <<<"$out"; then
    ok "buildah run --isolation chroot: $* -> exit $rc"
  else fail "buildah run: $* -> exit $rc, want $want_rc and '$want_out': $(head -3 <<<"$out")"; fi

  out="$(run_ro "$mnt" 30 -- "$@" 2>&1)"; rc=$?
  if [ "$rc" -eq "$want_rc" ] && grep -q -- "$want_out" <<<"$out"; then
    ok "read-only root, uid $UID_GID: $* -> exit $rc"
  else fail "read-only root, uid $UID_GID: $* -> exit $rc, want $want_rc and '$want_out': $(head -3 <<<"$out")"; fi

  if [ "$name" = sluice-server ]; then
    if [ -n "${SLUICE_TEST_PG_DSN:-}" ]; then
      db=sluice_images_test
      psql "$SLUICE_TEST_PG_DSN" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
      dsn="$(tr ' ' '\n' <<<"$SLUICE_TEST_PG_DSN" | grep -v '^dbname=' | paste -sd' ') dbname=$db"
      server_mnt="$mnt"
      for n in 1 2; do
        out="$(run_ro "$mnt" 60 "SLUICE_DB_DSN=$dsn" -- /usr/bin/sluice-server migrate 2>&1)"; rc=$?
        if [ "$rc" -eq 0 ]; then ok "migrate (run $n), read-only root, uid $UID_GID: exit 0"
        else fail "migrate (run $n) -> exit $rc: $(tail -3 <<<"$out")"; fi
      done
      tables="$(psql "$dsn" -Atc \
        "SELECT count(*) FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog','information_schema')")"
      if [ "${tables:-0}" -gt 0 ]; then ok "migrate created $tables tables"; else fail "migrate created no tables"; fi
    else
      echo "  (migrate not checked: no SLUICE_TEST_PG_DSN; make images-test provides one)"
    fi
  fi
}

check_image sluice-server 0 "Usage:" /usr/bin/sluice-server --help
check_image sluice-gateway 0 "-backend" /usr/bin/sluice-gateway --help
check_image sluice-sink 2 "SINK_TYPE is required" /usr/bin/sluice-sink
check_image sluicectl 0 "Usage:" /usr/bin/sluicectl --help

# The server and the gateway from their images, each on a read-only root as
# uid 65532 with the host's network: /healthz through the gateway asks the
# server's grpc.health.v1 service, which answers once the database is reached.
if [ -n "${server_mnt:-}" ] && [ -n "${gateway_mnt:-}" ]; then
  echo "server + gateway from the images"
  logs="$(mktemp -d "${TMPDIR:-/tmp}/sluice-images-logs.XXXXXX")"
  base=$((20000 + $$ % 20000)); gp=$base; mp=$((base + 1)); hp=$((base + 2))
  mkdir -p "$logs/etc"
  printf 'grpc_host: 127.0.0.1\nauth:\n  mode: insecure_dev\naccess:\n  admins: [admin@example.com]\n' \
    >"$logs/etc/sluice.yaml"
  chmod -R a+rX "$logs"
  ( RO_BIND="$logs/etc:/etc/sluice" run_ro "$server_mnt" 120 "SLUICE_DB_DSN=$dsn" \
      "SLUICE_ENCRYPTION_KEY=$(openssl rand -hex 32)" -- \
      /usr/bin/sluice-server --config /etc/sluice/sluice.yaml --grpc_port "$gp" --metrics_port "$mp" ) \
    >"$logs/server.log" 2>&1 &
  spid=$!
  run_ro "$gateway_mnt" 90 -- /usr/bin/sluice-gateway --http_host 127.0.0.1 --http_port "$hp" \
    --backend "127.0.0.1:$gp" >"$logs/gateway.log" 2>&1 &
  gpid=$!
  code=""
  for _ in $(seq 1 60); do
    code="$(curl -s -o "$logs/healthz" -w '%{http_code}' "http://127.0.0.1:$hp/healthz" || true)"
    [ "$code" = 200 ] && break
    sleep 0.5
  done
  if [ "$code" = 200 ]; then ok "GET /healthz through the gateway: 200 $(head -c 120 "$logs/healthz")"
  else fail "GET /healthz: '$code'; server: $(tail -3 "$logs/server.log"); gateway: $(tail -3 "$logs/gateway.log")"; fi
  # policy -> provider (noop) -> appeal -> approve -> grant, through the gateway.
  api="http://127.0.0.1:$hp/api/v1beta1"
  call() {  # <as> <method> <path> [json body]: prints the body, fails on non-2xx
    curl -sf -X "$2" -H "X-Auth-Email: $1" -H 'Content-Type: application/json' ${4:+-d "$4"} "$api$3"
  }
  jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }
  if call admin@example.com POST /policies '{"id":"images-test","steps":[{"name":"owner","strategy":"manual","approvers":["owner@example.com"]}],"appeal":{"allow_permanent_access":true}}' >/dev/null &&
     call admin@example.com POST /providers '{"type":"noop","urn":"noop-images-test","allowed_account_types":["user"],"resources":[{"type":"noop","policy":{"id":"images-test","version":1},"roles":[{"id":"viewer"}]}]}' >/dev/null &&
     rid="$(call admin@example.com GET '/resources?urn=noop-images-test' | jget 'd["resources"][0]["id"]')" &&
     aid="$(call alice@example.com POST /appeals "{\"resources\":[{\"id\":\"$rid\",\"role\":\"viewer\"}]}" | jget 'd["appeals"][0]["id"]')" &&
     st="$(call owner@example.com POST "/appeals/$aid/approvals/owner" '{"action":"approve","reason":"images-test"}' | jget 'd["appeal"]["status"]')" &&
     gst="$(call alice@example.com GET "/appeals/$aid" | jget 'd["appeal"]["grant"]["status"]')"; then
    if [ "$st" = approved ] && [ "$gst" = active ]; then ok "policy -> provider -> appeal -> approve: appeal $st, grant $gst"
    else fail "appeal flow: appeal '$st', grant '$gst'"; fi
  else fail "appeal flow failed; server: $(tail -2 "$logs/server.log")"; fi
  m="$(curl -s "http://127.0.0.1:$mp/metrics" | grep -c '^# TYPE' || true)"
  if [ "${m:-0}" -gt 0 ]; then ok "server /metrics: $m metric families"; else fail "server /metrics empty"; fi
  kill -TERM "$spid" "$gpid" 2>/dev/null
  wait "$spid"; src=$?
  wait "$gpid"
  if [ "$src" -eq 0 ]; then ok "server exits 0 on SIGTERM"; else fail "server exit $src on SIGTERM: $(tail -2 "$logs/server.log")"; fi
  rm -rf "$logs"
fi
# The sink from its image, configured by environment only, against the dev
# broker (a host process) fed by the sample producer, with the log sink: the
# records it consumes appear on its stdout as "topic=sample-log ..." lines.
if [ -n "${sink_mnt:-}" ]; then
  echo "sink from its image, dev broker + sample producer on the host"
  bazel build //sink/devbroker:sluice-devbroker //sink/sample:sluice-sample-producer \
    //sink/sample:sample_cc_descriptor_set >/dev/null 2>&1 || fail "bazel build of the dev broker and producer"
  BIN="$(bazel info bazel-bin 2>/dev/null)"
  slogs="$(mktemp -d "${TMPDIR:-/tmp}/sluice-images-sink.XXXXXX")"
  timeout 90 "$BIN/sink/devbroker/sluice-devbroker" --topic sample-log:2 >"$slogs/broker.out" 2>"$slogs/broker.err" &
  bpid=$!
  for _ in $(seq 100); do [ -s "$slogs/broker.out" ] && break; sleep 0.1; done
  brokers="$(head -1 "$slogs/broker.out")"
  mkdir -p "$slogs/www" && cp "$BIN/sink/sample/sample_cc.desc" "$slogs/www/sample.desc"
  hport=$(( $(echo "${base:-30000}") + 5 ))
  timeout 90 python3 -m http.server "$hport" --bind 127.0.0.1 --directory "$slogs/www" >/dev/null 2>&1 &
  hpid=$!
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$hport/sample.desc" && break; sleep 0.1; done
  timeout 90 "$BIN/sink/sample/sluice-sample-producer" --brokers "$brokers" --topic sample-log --rate 20 \
    2>"$slogs/producer.err" &
  ppid_=$!
  ( run_ro "$sink_mnt" 90 SINK_TYPE=log "SOURCE_KAFKA_BROKERS=$brokers" SOURCE_KAFKA_TOPIC=sample-log \
      SOURCE_KAFKA_CONSUMER_GROUP_ID=sluice-images-test SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET=earliest \
      'INPUT_SCHEMA_PROTO_CLASS=io.sluice.sample.SampleProto$SampleLogMessage' \
      SCHEMA_REGISTRY_STENCIL_ENABLE=true "SCHEMA_REGISTRY_STENCIL_URLS=http://127.0.0.1:$hport/sample.desc" \
      SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY=LONG_POLLING SINK_CONTROL_PORT=0 METRIC_PROMETHEUS_PORT=0 -- \
      /usr/bin/sluice-sink ) >"$slogs/sink.out" 2>"$slogs/sink.err" &
  kpid=$!
  n=0
  for _ in $(seq 60); do
    n="$(grep -c '^topic=sample-log ' "$slogs/sink.out" 2>/dev/null || true)"
    [ "${n:-0}" -ge 10 ] && break
    sleep 0.5
  done
  if [ "${n:-0}" -ge 10 ]; then ok "log sink delivered $n records: $(grep -m1 '^topic=' "$slogs/sink.out" | cut -c1-100)"
  else fail "log sink delivered ${n:-0} records; sink: $(tail -3 "$slogs/sink.err")"; fi
  kill -TERM "$kpid" 2>/dev/null; wait "$kpid"; krc=$?
  if [ "$krc" -eq 0 ]; then ok "sink exits 0 on SIGTERM"; else fail "sink exit $krc on SIGTERM: $(tail -2 "$slogs/sink.err")"; fi
  for p in "$ppid_" "$hpid" "$bpid"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$slogs"
fi
[ -n "${dsn:-}" ] && psql "$SLUICE_TEST_PG_DSN" -qc "DROP DATABASE IF EXISTS sluice_images_test" >/dev/null 2>&1

echo "images-test: $failures failure(s) in $(( $(date +%s) - start )) s"
[ "$failures" -eq 0 ]
