#!/usr/bin/env bash
# Build every image the deploy flow's CI run uses, with no registry: the mock, PostgreSQL and the fault images.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/build-mock-image.sh"
"$here/build-postgres-image.sh"
"$here/build-fault-images.sh"
