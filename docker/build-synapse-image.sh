#!/usr/bin/env bash
# Build an image of the real, unmodified Synapse 1.67.0 with no base image from a registry: this machine's
# system Python (/usr/bin/python3), the Python files of the Debian packages .ci/synapse.sh installs (and the
# python3-* packages they depend on), the shared libraries all of it links, and the synapse/ tree of
# ../shared/reference/upstream/synapse-v1.67.0.tar.gz with the dist-info METADATA that Synapse's start-up
# dependency check reads; imported with `docker import`. python3-psycopg2 is included when installed, so
# that the image can use PostgreSQL (label dev.admin-conformance.synapse.postgres=yes|no).
# Usage: docker/build-synapse-image.sh [IMAGE]   (default admin-conformance/synapse:1.67.0)
# Idempotent: an image whose content label matches its inputs (this script, the entry point, the tarball,
# the package versions) is kept as it is, in well under a second.
# Exit 0 with the image name on stdout; 1 with the reason on stderr when something is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$(cd "$here/.." && pwd)"
image="${1:-admin-conformance/synapse:1.67.0}"
version=1.67.0
tarball="${AC_SYNAPSE_TARBALL:-$project/../shared/reference/upstream/synapse-v$version.tar.gz}"
python=/usr/bin/python3
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

die() { printf 'build-synapse-image: %s\n' "$*" >&2; exit 1; }
[ -f "$tarball" ] || die "the Synapse source $tarball is missing (it comes with ../shared/reference/upstream)"
[ -x "$python" ] || die "no system Python at $python"
command -v dpkg-query >/dev/null || die "no dpkg-query: the Python packages are taken from Debian's"

# The package list is .ci/synapse.sh's, read from its PACKAGES=( ... ) array so that the two cannot drift.
mapfile -t wanted < <(sed -n '/^PACKAGES=(/,/^)/p' "$project/.ci/synapse.sh" | tr ' ' '\n' | grep -E '^python3' | sort -u)
[ "${#wanted[@]}" -gt 5 ] || die "could not read the package list of .ci/synapse.sh"
# One dpkg query for every python3* package: status, version, dependencies, what it provides.
declare -A pkgver=() depends=() provider=()
while IFS=$'\t' read -r status pkg ver deps provides; do
  [ "${status:0:2}" = ii ] || continue
  pkgver[$pkg]="$ver"
  depends[$pkg]="$deps"
  for v in $(printf '%s' "$provides" | tr ',' '\n' | sed -E 's/\(.*\)//; s/ //g'); do provider[$v]="$pkg"; done
done < <(dpkg-query -W -f='${db:Status-Abbrev}\t${Package}\t${Version}\t${Depends},${Pre-Depends}\t${Provides}\n' 'python3*' 2>/dev/null)
installed() { [ -n "${pkgver[$1]:-}" ]; }
missing=()
for p in "${wanted[@]}"; do installed "$p" || missing+=("$p"); done
[ "${#missing[@]}" -eq 0 ] || die "Debian packages missing (install them with .ci/synapse.sh): ${missing[*]}"
postgres=no
if installed python3-psycopg2; then wanted+=(python3-psycopg2); postgres=yes; fi

# Close the list over the python3-* packages they depend on (the libraries come from ldd below); a
# virtual package (python3-cffi-backend-api-max, say) stands for the installed package that provides it.
declare -A seen=()
queue=("${wanted[@]}")
while [ "${#queue[@]}" -gt 0 ]; do
  p="${queue[0]}"
  queue=("${queue[@]:1}")
  installed "$p" || p="${provider[$p]:-}"
  [ -n "$p" ] && [ -z "${seen[$p]:-}" ] || continue
  seen[$p]=1
  for d in $(printf '%s' "${depends[$p]}" | tr ',|' '\n\n' | sed -E 's/\(.*\)//; s/:any//; s/ //g'); do
    case "$d" in python3-*) [ -z "${seen[$d]:-}" ] && queue+=("$d") ;; esac
  done
done
packages="$(printf '%s\n' "${!seen[@]}" | sort)"

# Content label: everything the image is made of, so a rebuild happens exactly when an input changed.
label="$( {
  cat "${BASH_SOURCE[0]}" "$here/rootfs-lib.sh" "$here/synapse-entrypoint.py" "$project/test/fixtures/synapse/metadata.ts"
  sha256sum "$tarball" | cut -d' ' -f1
  readlink -f "$python"
  for p in $packages; do printf '%s %s\n' "$p" "${pkgver[$p]}"; done
} | sha256sum | cut -c1-16)"
current="$(docker image inspect --format '{{ index .Config.Labels "dev.admin-conformance.content" }}' "$image" 2>/dev/null || true)"
if [ "$current" = "$label" ]; then
  echo "$image"
  exit 0
fi

root="$(mktemp -d /tmp/admin-conformance-rootfs.XXXXXX)"
trap 'rm -rf "$root"' EXIT
rootfs_base "$root"
# Synapse runs as this user; it writes only below /tmp (the media store, SQLite, generated configs).
printf 'synapse:x:991:991:Synapse:/tmp:/usr/sbin/nologin\n' >>"$root/etc/passwd"
printf 'synapse:x:991:\n' >>"$root/etc/group"

py="$(readlink -f "$python")"
rootfs_add_binary "$root" "$py"
ln -sfn "$(basename "$py")" "$root/usr/bin/python3"
stdlib="$("$python" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
mkdir -p "$root$(dirname "$stdlib")"
# The standard library without its tests and the tools no server uses.
tar -C "$(dirname "$stdlib")" --exclude="$(basename "$stdlib")/test" --exclude='*/idlelib' --exclude='*/tkinter' \
  --exclude='*/ensurepip' --exclude='*/lib2to3' --exclude='*/turtledemo' --exclude='__pycache__' -cf - "$(basename "$stdlib")" |
  tar -C "$root$(dirname "$stdlib")" -xf -
# The packages' Python files (and the data files beside them), not their docs; one tar keeps symlinks.
for p in $packages; do dpkg-query -L "$p"; done | { grep -E '^/usr/lib/python3(\.[0-9]+)?/' || true; } | grep -v '/__pycache__/' |
  while IFS= read -r f; do if [ -f "$f" ] || [ -L "$f" ]; then printf '%s\n' "${f#/}"; fi; done | sort -u >"$root.files"
tar -C / --no-recursion -cf - -T "$root.files" | tar -C "$root" -xf -
rm -f "$root.files"
# Every extension module and what it links, from the standard library and the packages.
while IFS= read -r so; do rootfs_add_binary "$root" "$so"; done < <(find "$root/usr/lib" -path "$root/usr/lib/python3*" -name '*.so*' -type f | sed "s|^$root||")
# OpenSSL's providers (cryptography loads the legacy one at import) and its configuration.
for so in /usr/lib/*/ossl-modules/*.so; do [ -e "$so" ] && rootfs_add_binary "$root" "$so"; done
for f in /usr/lib/ssl/openssl.cnf /etc/ssl/openssl.cnf; do [ -e "$f" ] && rootfs_copy "$root" "$f"; done

# Synapse itself: the released source, untouched, and its METADATA (written as an installer would).
mkdir -p "$root/opt/synapse/site/matrix_synapse-$version.dist-info"
tar -xzf "$tarball" -C "$root/opt/synapse" --strip-components=1 --wildcards '*/synapse' '*/pyproject.toml' '*/LICENSE'
(cd "$project" && node --import tsx -e "
  const { readFileSync } = await import('node:fs')
  const { distMetadata } = await import('./test/fixtures/synapse/metadata.ts')
  process.stdout.write(distMetadata(readFileSync(process.argv[1], 'utf8')))" "$root/opt/synapse/pyproject.toml") \
  >"$root/opt/synapse/site/matrix_synapse-$version.dist-info/METADATA"
install -D -m 0755 "$here/synapse-entrypoint.py" "$root/usr/local/bin/synapse-entrypoint"
mkdir -p "$root/data"

# The same check Synapse makes at start-up, inside the assembled root before it becomes an image (as root;
# otherwise with the host's Python on the same files, which proves less).
check='from synapse.util.check_dependencies import check_requirements; check_requirements(); import synapse.app.homeserver, nacl.signing'
if [ "$postgres" = yes ]; then check="$check; import psycopg2"; fi
if [ "$(id -u)" = 0 ]; then
  out="$(env -i PATH=/usr/bin:/bin LANG=C.UTF-8 PYTHONPATH=/opt/synapse:/opt/synapse/site "$(command -v chroot)" "$root" /usr/bin/python3 -c "$check" 2>&1 </dev/null)" || die "Synapse's dependency check fails in the image: $out"
else
  out="$(PYTHONPATH="$root/opt/synapse:$root/opt/synapse/site" "$python" -c "$check" 2>&1)" || die "Synapse's dependency check fails: $out"
fi

rootfs_import "$root" "$image" \
  'ENV PYTHONPATH=/opt/synapse:/opt/synapse/site' \
  'ENV PYTHONUNBUFFERED=1' \
  'ENV LANG=C.UTF-8' \
  'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  'ENV SYNAPSE_CONFIG_PATH=/data/homeserver.yaml' \
  "LABEL dev.admin-conformance.content=$label" \
  "LABEL dev.admin-conformance.synapse.version=$version" \
  "LABEL dev.admin-conformance.synapse.postgres=$postgres" \
  'WORKDIR /tmp' \
  'USER synapse' \
  'ENTRYPOINT ["/usr/bin/python3", "/usr/local/bin/synapse-entrypoint"]'
echo "$image"
