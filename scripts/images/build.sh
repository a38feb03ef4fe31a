#!/usr/bin/env bash
# `make images`: builds the OCI images of Sluice with buildah, without a
# daemon and without pulling any image from a registry:
#
#   sluice/sluice-server:<version>   server binary + migrations + the Debian runtime
#                                    libraries it links (ldd -> dpkg -S -> packages)
#   sluice/sluice-gateway:<version>  the static Go gateway on an empty base (scratch)
#   sluice/sluice-sink:<version>     the worker (configured by environment only)
#   sluice/sluicectl:<version>       the CLI
#   sluice/sluice-dev-postgres:<version>  PostgreSQL from Debian's postgresql-<major>
#                                    package, for deploy/dev/postgres.yaml (development
#                                    and the stack test; not for production data)
#
# The C++ images' root filesystems come from `mmdebstrap --variant=extract`
# against the machine's apt sources (a fixed Debian snapshot here), holding only
# the packages whose libraries the binary links, plus their dependencies: no
# shell, no dpkg, no apt. Every image runs as uid/gid 65532 (`sluice`), needs no
# writable path (a read-only root filesystem works; mount a tmpfs on /tmp if a
# sink needs scratch space), carries the OCI labels
# org.opencontainers.image.{version,revision,source} and lists its Debian
# packages, `name=version` a line, in /usr/share/sluice/packages.txt.
#
# Binaries: bazel -c opt (SLUICE_IMAGE_COMPILATION_MODE overrides), stripped;
# SLUICE_IMAGE_BINDIR=<bazel-bin> takes binaries already built instead (`make
# test` passes its fastbuild outputs).
#
# Cache: each unpacked Debian root filesystem is kept in
# SLUICE_IMAGE_CACHE (default ~/.cache/sluice-images) under a key made of the
# exact package versions apt resolves for it (plus this script's rootfs
# recipe), so a rebuild with unchanged apt sources skips mmdebstrap. apt's
# resolution of those versions is kept there too until the package lists or
# /etc/apt change, and so is the ca-certificates package, under its version.
#
# Reproducible: every file's mtime is clamped to SOURCE_DATE_EPOCH (default: the
# commit time of HEAD) and `buildah commit --timestamp` uses it for the image's
# created time and history, so two builds of one commit from the same binaries
# give the same image ID.
# Environment: SLUICE_IMAGE_VERSION (default: server/server_service.h kVersion),
# SLUICE_IMAGE_SOURCE (default: git remote origin, else "local"),
# SLUICE_IMAGE_REPO (image name prefix, default "sluice"),
# SLUICE_IMAGES ("server gateway sink cli postgres" by default: which to build).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
start=$(date +%s)

MODE="${SLUICE_IMAGE_COMPILATION_MODE:-opt}"
REPO="${SLUICE_IMAGE_REPO:-sluice}"
IMAGES="${SLUICE_IMAGES:-server gateway sink cli postgres}"
CACHE="${SLUICE_IMAGE_CACHE:-$HOME/.cache/sluice-images}"
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
VERSION="${SLUICE_IMAGE_VERSION:-$(sed -n 's/.*kVersion\[\] = "\(.*\)";/\1/p' server/server_service.h)}"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then REVISION="$REVISION-dirty"; fi
SOURCE="${SLUICE_IMAGE_SOURCE:-$(git remote get-url origin 2>/dev/null || echo local)}"
UID_GID=65532
SUITE="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"

for tool in mmdebstrap buildah strip ldd dpkg-deb apt-get; do
  if ! command -v "$tool" >/dev/null; then
    echo "images: $tool missing (make deps installs it)" >&2
    exit 1
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-images.XXXXXX")"
ctrs=()
trap 'for c in "${ctrs[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done; rm -rf "$work"' EXIT

need_bin=false
for img in $IMAGES; do [ "$img" = postgres ] || need_bin=true; done
mkdir -p "$work/bin"
if $need_bin; then
  if [ -n "${SLUICE_IMAGE_BINDIR:-}" ]; then
    bin="$SLUICE_IMAGE_BINDIR"   # prebuilt: <dir>/{server,gateway,sink,cli}/<binary>
  else
    echo "images: bazel build -c $MODE"
    bazel build -c "$MODE" //server:sluice-server //gateway:sluice-gateway_gen //cli:sluicectl //sink:sluice-sink
    bin="$(bazel info -c "$MODE" bazel-bin 2>/dev/null)"
  fi
  for b in server/sluice-server gateway/sluice-gateway sink/sluice-sink cli/sluicectl; do
    cp "$bin/$b" "$work/bin/" && chmod 0755 "$work/bin/${b#*/}"
    strip --strip-unneeded "$work/bin/${b#*/}"
  done
  if ldd "$work/bin/sluice-gateway" >/dev/null 2>&1; then
    echo "images: sluice-gateway is dynamically linked; it must be static (CGO_ENABLED=0)" >&2
    exit 1
  fi
fi

# CA certificates for outbound TLS (providers, receivers, sinks): Debian's
# ca-certificates, unpacked by hand (its postinst would pull in perl and openssl).
echo "images: ca-certificates"
# Kept in the cache under its candidate version (downloading it took 3 s).
ca_version="$(apt-cache policy ca-certificates | awk '/Candidate:/ {print $2}')"
cadeb="$CACHE/ca-certificates_${ca_version//:/%3a}_all.deb"
if [ ! -s "$cadeb" ]; then
  mkdir -p "$CACHE"
  (cd "$work" && apt-get download -qq -o APT::Sandbox::User=root ca-certificates >/dev/null)
  rm -f "$CACHE"/ca-certificates_*.deb
  mv "$(ls "$work"/ca-certificates_*.deb)" "$cadeb"
fi
dpkg-deb -x "$cadeb" "$work/ca"
mkdir -p "$work/ca/etc/ssl/certs"
cat "$work"/ca/usr/share/ca-certificates/mozilla/*.crt >"$work/ca/etc/ssl/certs/ca-certificates.crt"
CA_LINE="$(dpkg-deb --show --showformat='${Package}=${Version}' "$cadeb")"

# The Debian packages holding the shared libraries a binary links. One
# dpkg-query call for every candidate path: each call reads dpkg's whole file
# database, and one call per library took 30 s for the server's 100 libraries.
lib_packages() {
  local lib cand path line found i j
  local -a libs cands
  local -A owner
  mapfile -t libs < <(ldd "$1" | awk '/=>/ {print $3} /ld-linux/ {print $1}' | sort -u)
  # Four candidate paths per library, in order: cands[4*i .. 4*i+3].
  for lib in "${libs[@]}"; do
    cands+=("$lib" "/usr$lib" "${lib#/usr}" "$(readlink -f "$lib")")
  done
  # "pkg:arch[, pkg2:arch]: /path" lines; paths nobody owns go to stderr.
  while IFS= read -r line; do
    [[ "$line" == diversion* ]] && continue
    path="${line#*: }"
    owner["$path"]="${line%%:*}"
  done < <(dpkg-query -S "${cands[@]}" 2>/dev/null || true)
  for i in "${!libs[@]}"; do
    lib="${libs[$i]}"
    found=""
    for j in 0 1 2 3; do
      cand="${cands[$((4 * i + j))]}"
      if [ -n "${owner[$cand]:-}" ]; then found="${owner[$cand]}"; break; fi
    done
    if [ -z "$found" ]; then
      echo "images: no Debian package holds $lib (linked by $1)" >&2
      return 1
    fi
    echo "$found"
  done | sort -u
}

# Files every image has: the user, name resolution, CA bundle, package list.
common_files() {  # <rootfs dir> <packages.txt lines on stdin>
  local r="$1"
  mkdir -p "$r/etc/ssl/certs" "$r/usr/share/sluice" "$r/usr/bin" "$r/tmp"
  chmod 1777 "$r/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nsluice:x:%s:%s:sluice:/nonexistent:/sbin/nologin\n' \
    "$UID_GID" "$UID_GID" >"$r/etc/passwd"
  printf 'root:x:0:\nsluice:x:%s:\n' "$UID_GID" >"$r/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$r/etc/nsswitch.conf"
  cp "$work/ca/etc/ssl/certs/ca-certificates.crt" "$r/etc/ssl/certs/"
  { cat; echo "$CA_LINE"; } | sort -u >"$r/usr/share/sluice/packages.txt"
}

# Unpacks <packages> (comma-separated) and their dependencies into <rootfs dir>
# with mmdebstrap, minus docs and package-manager state; <rootfs>/.packages lists
# them as name=version. Cached under the versions apt resolves for them.
unpack_packages() {  # <packages> <rootfs dir>
  local pkgs="$1" r="$2" key tarball resolved
  # apt's resolution (5 s a call) is remembered until the package lists or
  # the apt configuration change (apt-get update, a new source or pin).
  resolved="$CACHE/resolved-$( { echo "$pkgs"; find /var/lib/apt/lists /etc/apt -maxdepth 2 -type f \
    ! -name lock -printf '%p %s %T@\n' | sort; } | sha256sum | cut -c1-16)"
  if [ ! -s "$resolved" ]; then
    mkdir -p "$CACHE"
    apt-get install -s -qq --no-install-recommends -o Dir::State::status=/dev/null ${pkgs//,/ } |
      awk '/^Inst / {print $2, $3}' | sort >"$resolved.tmp"
    mv "$resolved.tmp" "$resolved"
    ls -t "$CACHE"/resolved-* 2>/dev/null | tail -n +41 | xargs -r rm -f
  fi
  key="$( { echo "recipe 1 $SUITE"; declare -f unpack_packages;
            cat "$resolved"; } | sha256sum | cut -c1-16)"
  tarball="$CACHE/rootfs-$key.tar"
  mkdir -p "$r"
  if [ -s "$tarball" ]; then
    tar -xf "$tarball" -C "$r"
    echo "images:   rootfs from cache ($(basename "$tarball"))"
    return
  fi
  mmdebstrap --quiet --variant=extract --include="$pkgs" \
    --extract-hook='for d in "$1"/var/cache/apt/archives/*.deb; do dpkg-deb --show --showformat="\${Package}=\${Version}\n" "$d"; done >"$1/.packages"' \
    "$SUITE" "$r" >/dev/null
  # No package manager, no docs: what is left is the packages' files.
  rm -rf "$r"/usr/share/{doc,man,info,locale,lintian,bug,common-licenses} \
    "$r"/var/cache "$r"/var/lib/apt "$r"/var/lib/dpkg "$r"/var/log "$r"/etc/apt "$r"/dev/* 2>/dev/null || true
  mkdir -p "$CACHE"
  tar -cf "$tarball.tmp" -C "$r" . && mv "$tarball.tmp" "$tarball"
  # Keep the 12 newest root filesystems.
  ls -t "$CACHE"/rootfs-*.tar 2>/dev/null | tail -n +13 | xargs -r rm -f
}

# A root filesystem with just the packages the binary links, unpacked.
debian_rootfs() {  # <binary> <rootfs dir>
  local b="$1" r="$2" pkgs
  pkgs="$(lib_packages "$b" | paste -sd, -)"
  unpack_packages "$pkgs" "$r"
  common_files "$r" <"$r/.packages"
  rm -f "$r/.packages"
  if [ -x /sbin/ldconfig ]; then /sbin/ldconfig -r "$r" 2>/dev/null || true; fi
}

label_args=(
  --label "org.opencontainers.image.version=$VERSION"
  --label "org.opencontainers.image.revision=$REVISION"
  --label "org.opencontainers.image.source=$SOURCE"
)

commit_image() {  # <name> <rootfs dir> <entrypoint json> [buildah config args...]
  local name="$1" r="$2" entry="$3" ctr old new
  shift 3
  ctr="$(buildah from scratch)"
  ctrs+=("$ctr")
  # Reproducible: no file newer than the commit (SOURCE_DATE_EPOCH).
  find "$r" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  buildah copy --quiet "$ctr" "$r" / >/dev/null
  buildah config --user "$UID_GID:$UID_GID" --workingdir / --entrypoint "$entry" --cmd '' \
    --env PATH=/usr/bin:/bin "${label_args[@]}" \
    --label "org.opencontainers.image.title=$name" "$@" "$ctr"
  # A rebuild leaves the previous image untagged: remove it (not if in use).
  old="$(buildah images --quiet --no-trunc "$REPO/$name:$VERSION" 2>/dev/null | awk 'NR == 1' || true)"
  new="$(buildah commit --quiet --rm --timestamp "$SOURCE_DATE_EPOCH" "$ctr" "$REPO/$name:$VERSION")"
  buildah tag "$REPO/$name:$VERSION" "$REPO/$name:latest"
  if [ -n "$old" ] && [ "$old" != "$new" ] && [ "$old" != "sha256:$new" ]; then
    buildah rmi "$old" >/dev/null 2>&1 || true
  fi
  # The largest parts, for the summary.
  (cd "$r" && find . -type f -printf '%s %p\n' | sort -rn |
    awk 'NR <= 4 {printf "    %6.1f MB  %s\n", $1/1048576, substr($2, 2)}') >"$work/$name.parts"
  du -sm "$r" | awk '{print $1}' >"$work/$name.du"
  grep -c . "$r/usr/share/sluice/packages.txt" >"$work/$name.npkgs"
}

built=()
for img in $IMAGES; do
  t0=$(date +%s)
  case "$img" in
    server)
      r="$work/rootfs-server"; debian_rootfs "$work/bin/sluice-server" "$r"
      cp "$work/bin/sluice-server" "$r/usr/bin/"
      mkdir -p "$r/etc/sluice/secrets"   # mount points of deploy/sluice-server.yaml's config and secrets
      # Applied from the binary (embedded); shipped for reading and for DBAs.
      for m in core:server/migrations access:server/access/store/migrations \
               notification:server/notification/store/migrations; do
        mkdir -p "$r/usr/share/sluice/migrations/${m%%:*}"
        cp "${m#*:}"/*.sql "$r/usr/share/sluice/migrations/${m%%:*}/"
      done
      commit_image sluice-server "$r" '["/usr/bin/sluice-server"]' --port 8081 --port 9091
      built+=(sluice-server) ;;
    gateway)
      r="$work/rootfs-gateway"; mkdir -p "$r"
      : | common_files "$r"
      cp "$work/bin/sluice-gateway" "$r/usr/bin/"
      commit_image sluice-gateway "$r" '["/usr/bin/sluice-gateway"]' --port 8080
      built+=(sluice-gateway) ;;
    sink)
      r="$work/rootfs-sink"; debian_rootfs "$work/bin/sluice-sink" "$r"
      cp "$work/bin/sluice-sink" "$r/usr/bin/"
      commit_image sluice-sink "$r" '["/usr/bin/sluice-sink"]'
      built+=(sluice-sink) ;;
    cli)
      r="$work/rootfs-cli"; debian_rootfs "$work/bin/sluicectl" "$r"
      cp "$work/bin/sluicectl" "$r/usr/bin/"
      commit_image sluicectl "$r" '["/usr/bin/sluicectl"]'
      built+=(sluicectl) ;;
    postgres)
      # Debian's PostgreSQL server without its JIT (LLVM, 130 MB; the manifest
      # sets jit=off) or the perl cluster wrappers: deploy/dev/postgres.yaml
      # runs initdb and postgres directly. initdb runs postgres through
      # popen(3), so this image (only this one) has a shell: dash as /bin/sh.
      r="$work/rootfs-postgres"
      pgpkg="$(apt-cache depends postgresql 2>/dev/null | awk '/Depends: postgresql-[0-9]+$/ {print $2; exit}')"
      unpack_packages "${pgpkg:-postgresql-15},dash" "$r"
      ln -sf dash "$r/bin/sh"
      pgbin="$(ls -d "$r"/usr/lib/postgresql/*/bin | sort -V | tail -1)"
      rm -rf "${pgbin%/bin}"/lib/llvmjit* "${pgbin%/bin}"/lib/bitcode "$r"/usr/lib/x86_64-linux-gnu/libLLVM* \
        "$r"/usr/lib/x86_64-linux-gnu/libz3* "$r"/usr/lib/x86_64-linux-gnu/perl* "$r"/usr/share/perl* \
        "$r"/usr/bin/perl* "$r"/usr/share/postgresql-common "$r"/usr/share/zoneinfo-icu
      grep -vE '^(libllvm|libz3|perl|libperl|postgresql-common)' "$r/.packages" >"$r/.packages.kept"
      common_files "$r" <"$r/.packages.kept"
      rm -f "$r/.packages" "$r/.packages.kept"
      for t in postgres initdb pg_isready psql; do ln -sf "${pgbin#"$r"}/$t" "$r/usr/bin/$t"; done
      mkdir -p "$r/var/lib/postgresql/data" "$r/etc/postgres/secret"
      if [ -x /sbin/ldconfig ]; then /sbin/ldconfig -r "$r" 2>/dev/null || true; fi
      commit_image sluice-dev-postgres "$r" '["/usr/bin/postgres"]' --port 5432
      built+=(sluice-dev-postgres) ;;
    *) echo "images: unknown image '$img' (server gateway sink cli postgres)" >&2; exit 1 ;;
  esac
  echo "images: ${built[-1]} in $(( $(date +%s) - t0 )) s"
done

echo
echo "images: built in $(( $(date +%s) - start )) s (version $VERSION, revision $REVISION)"
for name in "${built[@]}"; do
  size="$(buildah images --format '{{.Size}}' "$REPO/$name:$VERSION" | awk 'NR == 1')"
  printf '  %-32s %10s  (%s MB unpacked, %s Debian packages); largest parts:\n' \
    "$REPO/$name:$VERSION" "$size" "$(cat "$work/$name.du")" "$(cat "$work/$name.npkgs")"
  cat "$work/$name.parts"
done
