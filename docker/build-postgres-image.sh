#!/usr/bin/env bash
# Build a PostgreSQL server image with no base image from a registry: Debian's PostgreSQL binaries (installed
# from Debian when missing), their shared libraries and share files, dash for the entry point, imported with
# `docker import`. Usage: docker/build-postgres-image.sh [IMAGE]   (default admin-conformance/postgres:local)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
image="${1:-admin-conformance/postgres:local}"
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

pg_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pg_bindir)" ] || [ ! -x "$(pg_bindir)/postgres" ]; then
  echo "build-postgres-image: installing PostgreSQL from Debian" >&2
  # Do not create or start a cluster on the host: only the binaries are wanted.
  mkdir -p /etc/postgresql-common
  grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf ||
    echo 'create_main_cluster = false' >>/etc/postgresql-common/createcluster.conf
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
bindir="$(pg_bindir)"
ver="$(basename "$(dirname "$bindir")")"
libdir="/usr/lib/postgresql/$ver/lib"
sharedir="/usr/share/postgresql/$ver"

root="$(mktemp -d /tmp/admin-conformance-rootfs.XXXXXX)"
trap 'rm -rf "$root"' EXIT
rootfs_base "$root"
printf 'postgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh\n' >>"$root/etc/passwd"
printf 'postgres:x:999:\n' >>"$root/etc/group"

rootfs_add_binary "$root" "$(readlink -f /bin/sh)"
[ -e "$root/bin/sh" ] || ln -s "$(readlink -f /bin/sh)" "$root/bin/sh"
for b in postgres initdb pg_ctl pg_isready psql; do rootfs_add_binary "$root" "$bindir/$b"; done
# Server-side modules that initdb loads (plpgsql, snowball dictionaries, encodings); the LLVM JIT is left out.
mkdir -p "$root$libdir"
for so in "$libdir"/*.so; do
  case "$(basename "$so")" in llvmjit*) continue ;; esac
  rootfs_add_binary "$root" "$so"
done
mkdir -p "$root$(dirname "$sharedir")"
cp -a "$sharedir" "$root$sharedir"
# Debian builds PostgreSQL against the system time zone database.
if [ -d /usr/share/zoneinfo ]; then
  mkdir -p "$root/usr/share"
  cp -a /usr/share/zoneinfo "$root/usr/share/"
fi

install -m 0755 "$here/postgres-entrypoint.sh" "$root/usr/local/bin/docker-entrypoint.sh" 2>/dev/null || {
  mkdir -p "$root/usr/local/bin"
  install -m 0755 "$here/postgres-entrypoint.sh" "$root/usr/local/bin/docker-entrypoint.sh"
}
mkdir -p "$root/var/lib/postgresql/data" "$root/docker-entrypoint-initdb.d"
chown -R 999:999 "$root/var/lib/postgresql"
chmod 0700 "$root/var/lib/postgresql/data"

rootfs_import "$root" "$image" \
  "ENV PATH=$bindir:/usr/local/bin:/usr/bin:/bin" \
  'ENV PGDATA=/var/lib/postgresql/data' \
  'USER postgres' \
  'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
  'CMD ["postgres"]'
echo "$image"
