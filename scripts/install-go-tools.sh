#!/usr/bin/env bash
# Installs the Go tools the README promises admins, pinned, from the Go module
# proxy into a cache, for the integration tests (integration/
# grpcurl_examples_test) and for people:
#
#   grpcurl  github.com/fullstorydev/grpcurl/cmd/grpcurl (version below)
#
# and downloads the modules gateway/go.mod pins (grpc-gateway v2, gRPC,
# protobuf, the protoc plugins) into the same module cache, which
# gateway/build.sh reads in the build phase.
#
#   SLUICE_GO_TOOLS_HOME  the cache (default /var/cache/sluice/go): bin/ holds
#                         the binaries, mod/ and build/ Go's module and build
#                         caches
#   SLUICE_GO             the Go toolchain (default /usr/local/go/bin/go, the
#                         machine's own Go; else `go` on PATH). Debian's Go 1.19
#                         is too old for grpcurl's go.mod.
#
# Idempotent: a binary whose stamp names the pinned version is kept (a warm
# run reads one file). Prints the bin/ directory; the tests take grpcurl from
# $SLUICE_GRPCURL, else <that directory>/grpcurl.
set -euo pipefail
home="${SLUICE_GO_TOOLS_HOME:-/var/cache/sluice/go}"

# Pinned: `go list -m -versions github.com/fullstorydev/grpcurl` shows what the
# proxy serves. Change the version here and the next run reinstalls.
TOOLS=(
  "grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3"
)

go_bin() {
  if [ -n "${SLUICE_GO:-}" ]; then echo "$SLUICE_GO"; return; fi
  if [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go; return; fi
  command -v go || { echo "install-go-tools: no Go toolchain (set SLUICE_GO)" >&2; exit 1; }
}

# install NAME MODULE@VERSION: into $home/bin, unless its stamp is current.
install() {
  local name="$1" pkg="$2" stamp="$home/bin/.$1.stamp"
  if [ -x "$home/bin/$name" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkg" ]; then return 0; fi
  local sudo=""
  if [ ! -w "$(dirname "$home")" ] && [ ! -w "$home" ] && [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo mkdir -p "$home/bin"
  if [ -n "$sudo" ]; then $sudo chown -R "$(id -u):$(id -g)" "$home"; fi
  local go ver
  go="$(go_bin)"
  # grpcurl v1.9.3's go.mod says go 1.21; Go before 1.21 would not refuse it
  # by itself but fail on the newer modules it needs.
  ver="$("$go" env GOVERSION)"
  if ! printf 'go1.21\n%s\n' "$ver" | sort -V -C; then
    echo "install-go-tools: $go is $ver; $pkg needs go1.21 or newer (set SLUICE_GO)" >&2
    exit 1
  fi
  echo "install-go-tools: installing $pkg with $ver into $home/bin" >&2
  # GOTOOLCHAIN=local: never download another toolchain; GOFLAGS=-modcacherw
  # keeps the module cache deletable; GOBIN puts the binary in the cache;
  # main.version is what `grpcurl -version` prints (its release builds set it
  # so). The build cache (~300 MB) is of no use once the binary is there.
  rm -f "$stamp"
  env GOBIN="$home/bin" GOMODCACHE="$home/mod" GOCACHE="$home/build" GOPATH="$home/gopath" \
    GOTOOLCHAIN=local GOFLAGS=-modcacherw GO111MODULE=on \
    "$go" install -ldflags="-X main.version=${pkg##*@}" "$pkg" >&2
  rm -rf "$home/build"
  echo "$pkg" >"$stamp"
}

for tool in "${TOOLS[@]}"; do
  # shellcheck disable=SC2086
  install $tool
done

# The gateway's modules: `go mod download` checks go.sum and is a no-op once
# they are in the cache. The stamp keeps a warm run to one file read.
gw="$(cd "$(dirname "$0")/.." && pwd)/gateway"
gw_stamp="$home/mod/.sluice-gateway.sum"
if ! cmp -s "$gw/go.sum" "$gw_stamp" 2>/dev/null; then
  mkdir -p "$home/mod"
  echo "install-go-tools: downloading gateway/go.mod's modules into $home/mod" >&2
  (cd "$gw" && env GOMODCACHE="$home/mod" GOPATH="$home/gopath" GOTOOLCHAIN=local \
    GOFLAGS="-modcacherw -mod=readonly" GO111MODULE=on "$(go_bin)" mod download >&2)
  (cd "$gw" && env GOMODCACHE="$home/mod" GOPATH="$home/gopath" GOTOOLCHAIN=local \
    GOFLAGS="-modcacherw -mod=readonly" GO111MODULE=on "$(go_bin)" mod verify >&2)
  cp "$gw/go.sum" "$gw_stamp"
fi
echo "$home/bin"
