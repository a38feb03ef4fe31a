#!/usr/bin/env bash
# Builds the Go reference renderer (render.go) offline in GOPATH mode against
# Debian's Go packages, as gateway/build.sh builds the gateway.
#   build_render.sh OUT_BINARY RENDER_GO
# Debian installs sprig v3 and semver v3 without the /v3 path element that
# their import paths carry: a private GOPATH maps them.
set -euo pipefail
out="$1"; src="$2"
work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-render.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export GO111MODULE=off
export GOPATH="$work/gopath:/usr/share/gocode"
export GOCACHE="${SLUICE_GOCACHE:-${HOME:-/root}/.cache/sluice-go-build}"
export GOFLAGS=""
export CGO_ENABLED=0
mkdir -p "$work/gopath/src/github.com/Masterminds/sprig" "$work/gopath/src/github.com/Masterminds/semver" "$GOCACHE"
ln -s /usr/share/gocode/src/github.com/Masterminds/sprig "$work/gopath/src/github.com/Masterminds/sprig/v3"
ln -s /usr/share/gocode/src/github.com/Masterminds/semver "$work/gopath/src/github.com/Masterminds/semver/v3"
mkdir -p "$work/gopath/src/render"
cp "$src" "$work/gopath/src/render/main.go"
(cd "$work/gopath/src/render" && go build -o "$work/render" .)
cp "$work/render" "$out"
