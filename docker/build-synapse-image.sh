#!/usr/bin/env bash
# Build an image of the real, unmodified Synapse from Debian's package, with no base image from a registry:
# the Debian unstable root filesystem that .ci/synapse.sh makes with mmdebstrap (matrix-synapse installed
# by apt), plus this project's entry point, imported with `docker import`. The release is the installed
# package's; the image is tagged with it unless a name is given.
# Usage: docker/build-synapse-image.sh [IMAGE]   (default admin-conformance/synapse:<release>)
#        AC_SYNAPSE_ROOT=DIR to use another root filesystem (default /var/tmp/admin-conformance/synapse-root)
# Idempotent: an image whose content label matches its inputs (this script, the entry point, the root
# filesystem's package list and versions) is kept as it is, in about a second.
# Exit 0 with the image name on stdout; 1 with the reason on stderr when something is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$(cd "$here/.." && pwd)"
src="${AC_SYNAPSE_ROOT:-/var/tmp/admin-conformance/synapse-root}"
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

die() { printf 'build-synapse-image: %s\n' "$*" >&2; exit 1; }
[ -f "$src/.admin-conformance-root" ] || die "no Synapse root filesystem at $src (make it with .ci/synapse.sh)"
[ "$(id -u)" = 0 ] || die "reading the root filesystem and checking it with chroot needs root"
version="$(chroot "$src" /usr/bin/python3 -c 'import synapse; print(synapse.__version__)' 2>/dev/null)" || die "Synapse does not import in $src"
image="${1:-admin-conformance/synapse:$version}"
postgres=no
chroot "$src" /usr/bin/python3 -c 'import psycopg2' 2>/dev/null && postgres=yes

# Content label: everything the image is made of, so a rebuild happens exactly when an input changed.
label="$( {
  cat "${BASH_SOURCE[0]}" "$here/rootfs-lib.sh" "$here/synapse-entrypoint.py"
  cat "$src/var/lib/dpkg/status"
} | sha256sum | cut -c1-16)"
current="$(docker image inspect --format '{{ index .Config.Labels "dev.admin-conformance.content" }}' "$image" 2>/dev/null || true)"
if [ "$current" = "$label" ]; then
  echo "$image"
  exit 0
fi

# A copy of the root made of hard links (quick, no second 450 MB), so that adding the entry point never
# changes the shared root the chroot tests use. Package caches and docs are left out of the image.
root="$(mktemp -d "$(dirname "$src")/.synapse-image.XXXXXX")"
trap 'rm -rf "$root"' EXIT
cp -al "$src/." "$root/"
rm -rf "$root/var/cache/apt" "$root/var/lib/apt/lists" "$root/usr/share/doc" "$root/usr/share/man" "$root/srv"/ac-synapse-*
mkdir -p "$root/data" "$root/srv"
rm -f "$root/usr/local/bin/synapse-entrypoint"
install -D -m 0755 "$here/synapse-entrypoint.py" "$root/usr/local/bin/synapse-entrypoint"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' >"$root/etc/hosts.new" && mv "$root/etc/hosts.new" "$root/etc/hosts"

# Debian's package made the matrix-synapse system user; Synapse runs as it and writes below /tmp.
uid="$(awk -F: '$1 == "matrix-synapse" { print $3 }' "$root/etc/passwd")"
[ -n "$uid" ] || die "no matrix-synapse user in $src/etc/passwd"

rootfs_import "$root" "$image" \
  'ENV PYTHONUNBUFFERED=1' \
  'ENV LANG=C.UTF-8' \
  'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  'ENV SYNAPSE_CONFIG_PATH=/data/homeserver.yaml' \
  "LABEL dev.admin-conformance.content=$label" \
  "LABEL dev.admin-conformance.synapse.version=$version" \
  "LABEL dev.admin-conformance.synapse.postgres=$postgres" \
  'LABEL dev.admin-conformance.synapse.source=debian-unstable-matrix-synapse' \
  'WORKDIR /tmp' \
  'USER matrix-synapse' \
  'ENTRYPOINT ["/usr/bin/python3", "/usr/local/bin/synapse-entrypoint"]'
echo "$image"
