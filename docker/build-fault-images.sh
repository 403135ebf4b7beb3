#!/usr/bin/env bash
# Images that misbehave on purpose, for the deploy flow's fault tests, made from the mock image (which has
# Node.js) by `docker commit` with another entry point; they share its layer, so this takes a moment.
#   admin-conformance/fault-exit:local     prints a line and exits with code 1 at once
#   admin-conformance/fault-silent:local   keeps running but never listens, so health never passes
# Usage: docker/build-fault-images.sh [BASE_IMAGE]   (default admin-conformance/mock:local)
set -euo pipefail
base="${1:-admin-conformance/mock:local}"
docker image inspect "$base" >/dev/null 2>&1 || { echo "build-fault-images: base image $base missing (run docker/build-mock-image.sh)" >&2; exit 1; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=rootfs-lib.sh
. "$here/rootfs-lib.sh"

make() {
  local image="$1" script="$2" cid old
  old="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  cid="$(docker create "$base")"
  docker commit \
    --change "ENTRYPOINT [\"/usr/bin/node\", \"-e\", \"$script\"]" \
    --change 'CMD []' \
    "$cid" "$image" >/dev/null
  docker rm "$cid" >/dev/null
  rootfs_drop_replaced "$image" "$old"
  echo "$image"
}
make admin-conformance/fault-exit:local "console.error('fault image: exiting with code 1 on purpose'); process.exit(1)"
make admin-conformance/fault-silent:local "console.log('fault image: running, never listening'); setInterval(() => {}, 1 << 30)"
