#!/usr/bin/env bash
# Build the image of the bundled mock with no base image from a registry: a root filesystem holding this
# machine's Node.js, its shared libraries and the project (sources plus production node_modules), imported
# with `docker import`. Usage: docker/build-mock-image.sh [IMAGE]   (default admin-conformance/mock:local)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$(cd "$here/.." && pwd)"
image="${1:-admin-conformance/mock:local}"
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

node_bin="$(readlink -f "$(command -v node)")"
root="$(mktemp -d /tmp/admin-conformance-rootfs.XXXXXX)"
trap 'rm -rf "$root"' EXIT

rootfs_base "$root"
rootfs_add_binary "$root" "$node_bin"
[ "$node_bin" = /usr/bin/node ] || { mkdir -p "$root/usr/bin"; ln -sf "$node_bin" "$root/usr/bin/node"; }
# CA certificates and zoneinfo are not needed on loopback; a nodejs that reads /etc/ssl is still fine without.

app="$root/app"
mkdir -p "$app"
for entry in bin lib mock schemas scripts package.json tsconfig.json; do
  [ -e "$project/$entry" ] && cp -a "$project/$entry" "$app/"
done
# Production dependencies only (tsx runs the sources); fall back to everything if npm cannot tell.
mkdir -p "$app/node_modules"
if deps="$(cd "$project" && npm ls --omit=dev --all --parseable 2>/dev/null)" && [ -n "$deps" ]; then
  while IFS= read -r dir; do
    [ "$dir" = "$project" ] && continue
    rel="${dir#"$project"/}"
    mkdir -p "$app/$(dirname "$rel")"
    [ -e "$app/$rel" ] || cp -a "$dir" "$app/$rel"
  done <<<"$deps"
  [ -d "$project/node_modules/.bin" ] && cp -a "$project/node_modules/.bin" "$app/node_modules/"
else
  cp -a "$project/node_modules/." "$app/node_modules/"
fi

rootfs_import "$root" "$image" \
  'WORKDIR /app' \
  'ENV NODE_ENV=production' \
  'ENV HOME=/tmp' \
  'ENTRYPOINT ["/usr/bin/node", "/app/bin/admin-conformance.mjs"]' \
  'CMD ["mock", "--host", "127.0.0.1"]'
echo "$image"
