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
#   - sluice-dev-postgres: PostgreSQL's --help, as the others.
# Then scripts/images/stack.py: checks what no runner here executes by reading
# deploy/*.yaml (probes, Service, NetworkPolicy, Secret keys), and runs the
# stack from the images as the manifests describe it, in a private network
# namespace with `buildah run --isolation chroot --network host`: PostgreSQL
# (deploy/dev/postgres.yaml: initdb, postgres), the server's pod (migrate, then
# server + gateway: /healthz, the appeal flow, /metrics), the sink's pod against
# the dev broker and the sample producer (the log sink delivers); SIGTERM ends
# each with exit 0.
# `podman run` cannot run containers on these machines (setrlimit EPERM), so
# nothing here needs it. `make test` runs it after `make images` (scripts/test.sh);
# without buildah it prints one line and exits 0 (skipped).
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
  for c in "${ctrs[@]}"; do buildah umount "$c" >/dev/null 2>&1; buildah rm "$c" >/dev/null 2>&1; done
  [ -n "${ro:-}" ] && rmdir "$ro" 2>/dev/null
  return 0
}
trap cleanup EXIT
ro="$(mktemp -d "${TMPDIR:-/tmp}/sluice-images-ro.XXXXXX")"

# Runs <argv...> as uid 65532 inside a read-only bind mount of <root dir>
# (chroot in a private mount namespace), with the host's network and only the
# given environment; prints output, returns the command's exit status.
# Call it in a subshell ($(...) or &): it execs timeout, which passes SIGTERM on.
run_ro() {  # <root dir> <timeout s> [NAME=value...] -- <argv...>
  local root="$1" t="$2" envs=()
  shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  exec timeout "$t" unshare -m -- sh -c 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 125
      shift 2; exec "$@"' \
    run_ro "$root" "$ro" env -i "${envs[@]}" "$(command -v chroot)" --userspec="$UID_GID:$UID_GID" "$ro" "$@"
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

}

check_image sluice-server 0 "Usage:" /usr/bin/sluice-server --help
check_image sluice-gateway 0 "-backend" /usr/bin/sluice-gateway --help
check_image sluice-sink 2 "SINK_TYPE is required" /usr/bin/sluice-sink
check_image sluicectl 0 "Usage:" /usr/bin/sluicectl --help
check_image sluice-dev-postgres 0 "Usage:" /usr/bin/postgres --help

# The stack from the images, as deploy/*.yaml describe it: the dev broker and
# the sample producer (host binaries) feed the sink.
echo "stack (scripts/images/stack.py)"
if bazel build //sink/devbroker:sluice-devbroker //sink/sample:sluice-sample-producer \
    //sink/sample:sample_cc_descriptor_set >/dev/null 2>&1; then
  BIN="$(bazel info bazel-bin 2>/dev/null)"
  # A private network namespace plays the cluster's network: the manifests'
  # ports unchanged, no clash with anything on the host.
  if ! unshare -n -- sh -c 'ip link set lo up && exec python3 scripts/images/stack.py --repo "$1" --version "$2" --bazel-bin "$3"' \
      stack "$REPO" "$VERSION" "$BIN"; then
    failures=$((failures + 1))
  fi
else
  fail "bazel build of the dev broker and producer"
fi

echo "images-test: $failures failure(s) in $(( $(date +%s) - start )) s"
[ "$failures" -eq 0 ]
