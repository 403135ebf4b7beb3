#!/usr/bin/env bash
# Build the image of the bundled mock with no base image from a registry: the harness image (this machine's
# Node.js and the packed package, installed read-only; docker/build-harness-image.sh), whose default command
# is then the mock on loopback. The deploy flow gives the command explicitly (`mock --host … --port …`).
# Usage: docker/build-mock-image.sh [IMAGE] [TARBALL]   (default admin-conformance/mock:local; the tarball
# is packed from this checkout when not given)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
image="${1:-admin-conformance/mock:local}"
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

old="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
"$here/build-harness-image.sh" "$image" "${2:-}" >/dev/null
built="$(docker image inspect --format '{{.Id}}' "$image")"
cid="$(docker create "$image")"
docker commit --change 'CMD ["mock", "--host", "127.0.0.1"]' "$cid" "$image" >/dev/null
docker rm "$cid" >/dev/null
# The harness image the commit was made from, and the image this one replaced, are no longer needed.
rootfs_drop_replaced "$image" "$built"
rootfs_drop_replaced "$image" "$old"
echo "$image"
