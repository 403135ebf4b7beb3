#!/usr/bin/env bash
# A real Synapse for the tests, from Debian's package only: a Debian unstable root filesystem made with
# mmdebstrap, with `matrix-synapse` installed in it (unstable ships the newest release; bookworm has none).
# The tests run it with chroot on loopback (test/fixtures/synapse/launcher.ts) and the deploy flow imports
# it as an image (docker/build-synapse-image.sh). Facts: ../shared/reference/real-synapse.md.
#
# Idempotent: a complete root filesystem at $AC_SYNAPSE_ROOT (default /var/tmp/admin-conformance/synapse-root)
# is reused as it is (well under a second); `--refresh` builds a new one (the newest package that day)
# and swaps it in. The build goes to a temporary folder beside it and is moved into place only when whole,
# so an interrupted build never leaves a half-made root behind.
# The root also holds the Debian clients the tests run against the mock (test/clients/synadm.test.ts,
# test/clients/matrix-nio.test.ts): a reused root that lacks them gets them installed into it in place.
# Exit 0 with the release on stdout; 1 with the reason on stderr.
set -euo pipefail

log() { printf 'synapse.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

root="${AC_SYNAPSE_ROOT:-/var/tmp/admin-conformance/synapse-root}"
marker="$root/.admin-conformance-root"
refresh=no
[ "${1:-}" = --refresh ] && refresh=yes

# Debian's admin CLI and Python client library, run by the client tests.
clients=(synadm python3-matrix-nio)

release() { chroot "$1" /usr/bin/python3 -c 'import synapse; print(synapse.__version__)' 2>/dev/null; }

# The client packages the root lacks, one a line (none: empty).
missing_clients() {
  local p
  for p in "${clients[@]}"; do
    [ "$(chroot "$1" dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || echo "$p"
  done
}

# A cached root made before the clients were added: install them into it (apt inside the root).
add_clients() {
  local want
  want="$(missing_clients "$1" | tr '\n' ' ')"
  [ -n "${want// /}" ] || return 0
  [ "$(id -u)" = 0 ] || die "installing $want into $1 needs root (chroot)"
  log "installing $want into the root filesystem at $1"
  # apt inside the root resolves the mirror's name with the root's own resolv.conf.
  [ -s "$1/etc/resolv.conf" ] || cp -L /etc/resolv.conf "$1/etc/resolv.conf"
  # shellcheck disable=SC2086
  chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Check-Valid-Until=false -o DPkg::Lock::Timeout=600 update -qq >&2 &&
    chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $want >&2 ||
    die "could not install $want into $1"
  [ -z "$(missing_clients "$1")" ] || die "$(missing_clients "$1" | tr '\n' ' ')still missing in $1 after the install"
}

if [ "$refresh" = no ] && [ -f "$marker" ]; then
  if v="$(release "$root")" && [ -n "$v" ]; then
    add_clients "$root"
    log "reusing the root filesystem at $root (Synapse $v)"
    echo "$v"
    exit 0
  fi
  log "the root filesystem at $root does not start Python with Synapse: making it again"
fi

[ "$(id -u)" = 0 ] || die "making the root filesystem needs root (mmdebstrap, chroot)"
export DEBIAN_FRONTEND=noninteractive
if ! command -v mmdebstrap >/dev/null 2>&1; then
  log "installing mmdebstrap from Debian"
  [ "${AC_APT_UPDATED:-}" = 1 ] || apt-get -o DPkg::Lock::Timeout=600 update -qq || log "apt-get update failed; trying the install anyway"
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends mmdebstrap >/dev/null || die "could not install mmdebstrap"
fi

# The Debian archive this machine's apt already uses (deb822 sources first, then the one-line format).
mirror="$(sed -nE 's/^URIs:[[:space:]]*([^[:space:]]+).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)"
if [ -z "$mirror" ]; then
  mirror="$(sed -nE 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | head -n 1 || true)"
fi
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list*"

parent="$(dirname "$root")"
mkdir -p "$parent"
chmod 0755 "$parent"
work="$(mktemp -d "$parent/.synapse-root-new.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# mmdebstrap wants an empty or missing target.
rmdir "$work"
log "making a Debian unstable root filesystem with matrix-synapse at $root (about 80 s and 450 MB; mirror $mirror)"
started=$(date +%s)
# The mirror's unstable Release file may be past its Valid-Until: the option is needed (real-synapse.md).
if ! mmdebstrap --quiet --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' --include="matrix-synapse,$(IFS=,; echo "${clients[*]}")" \
  unstable "$work" "deb $mirror unstable main" >&2; then
  die "mmdebstrap failed"
fi
v="$(release "$work")" || die "Synapse does not import in the new root filesystem"
[ -z "$(missing_clients "$work")" ] || die "the new root filesystem lacks $(missing_clients "$work" | tr '\n' ' ')"
printf 'matrix-synapse %s\nmade %s by .ci/synapse.sh from %s unstable\n' "$v" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$mirror" >"$work/.admin-conformance-root"
chmod 0755 "$work"
if [ -e "$root" ]; then
  old="$parent/.synapse-root-old.$$"
  mv "$root" "$old"
  mv "$work" "$root"
  rm -rf "$old"
else
  mv "$work" "$root"
fi
trap - EXIT
log "Synapse $v ready at $root in $(($(date +%s) - started)) s"
echo "$v"
