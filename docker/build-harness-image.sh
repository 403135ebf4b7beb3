#!/usr/bin/env bash
# Build the image of the harness (every command: run, mock, audit-log, plan-upgrade) with no base image
# from a registry: a root filesystem holding Debian's Node.js of this machine (the nodejs package), its
# shared libraries, the CA certificates, and the packed package installed from its tarball with npm
# from the local cache, imported with `docker import`.
#   docker/build-harness-image.sh [IMAGE] [TARBALL]
# IMAGE defaults to admin-conformance/harness:local; TARBALL to a fresh `npm pack` of this checkout.
# The package's folder is read-only in the image, and the commands run as nobody (uid 65534) with a
# home of their own (/home/conformance), where the user cache is.
#   docker run --rm --network host -e MAS_ADMIN_TOKEN -e HS_ADMIN_TOKEN IMAGE run --mas-url URL --hs-url URL
#   docker run --rm --network host IMAGE mock --port 8080
#   docker run --rm -i IMAGE audit-log - < mas.log
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$(cd "$here/.." && pwd)"
image="${1:-admin-conformance/harness:local}"
tarball="${2:-}"
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

work="$(mktemp -d /tmp/admin-conformance-harness.XXXXXX)"
trap 'rm -rf "$work"' EXIT
if [ -z "$tarball" ]; then
  # One pack at a time in a checkout (prepack rebuilds dist/, which a concurrent pack would be reading):
  # the lock folder the project's tests take too (test/package/packed.ts), given up after 15 minutes.
  lock="$project/.tap/npm-pack.lock"
  mkdir -p "$project/.tap"
  waited=0
  until mkdir "$lock" 2>/dev/null; do
    if [ "$waited" -ge 1800 ]; then rm -rf "$lock"; else sleep 0.5; waited=$((waited + 1)); fi
  done
  trap 'rm -rf "$work" "$lock"' EXIT
  (cd "$project" && npm pack --silent --pack-destination "$work" >/dev/null)
  rm -rf "$lock"
  trap 'rm -rf "$work"' EXIT
  tarball="$(ls "$work"/admin-conformance-*.tgz)"
fi
[ -f "$tarball" ] || { echo "build-harness-image: no tarball $tarball" >&2; exit 1; }

root="$work/root"
mkdir -p "$root"
node_bin="$(readlink -f "$(command -v node)")"
rootfs_base "$root"
rootfs_add_binary "$root" "$node_bin"
[ "$node_bin" = /usr/bin/node ] || { mkdir -p "$root/usr/bin"; ln -sf "$node_bin" "$root/usr/bin/node"; }
# HTTPS targets: Debian's CA bundle, which Debian's Node.js reads (and NODE_EXTRA_CA_CERTS names it for any other).
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then rootfs_copy "$root" /etc/ssl/certs/ca-certificates.crt; fi
# resolv.conf is provided by Docker at run time; names of targets resolve through it.

# The package, as `npm install -g` lays it out, from the local cache only.
# (a cache filled by `npm ci` lacks the dependencies' registry documents: then npm may fetch those alone)
npm_install() { npm install -g --prefix "$root/usr/local" "$1" --no-audit --no-fund --loglevel=error "$tarball" >/dev/null 2>"$work/npm.err"; }
if ! npm_install --offline; then
  grep -q ENOTCACHED "$work/npm.err" || { cat "$work/npm.err" >&2; exit 1; }
  npm_install --prefer-offline || { cat "$work/npm.err" >&2; exit 1; }
fi
pkg="$root/usr/local/lib/node_modules/admin-conformance"
[ -f "$pkg/dist/build.json" ] || { echo "build-harness-image: the package has no build (dist/)" >&2; exit 1; }
chmod -R a-w "$pkg"

# A home for the user the commands run as (its cache, 0700), and the working folder, open to any
# --user so that reports can be written to a folder mounted there (a user without the home runs
# without a cache).
install -d -m 0700 -o 65534 -g 65534 "$root/home/conformance"
install -d -m 1777 "$root/work"

ca=()
[ -f "$root/etc/ssl/certs/ca-certificates.crt" ] && ca=('ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
rootfs_import "$root" "$image" \
  'USER 65534:65534' \
  'WORKDIR /work' \
  'ENV HOME=/home/conformance' \
  'ENV NODE_ENV=production' \
  "${ca[@]}" \
  'ENTRYPOINT ["/usr/bin/node", "/usr/local/lib/node_modules/admin-conformance/bin/admin-conformance.mjs"]' \
  'CMD ["--help"]'
echo "$image"
