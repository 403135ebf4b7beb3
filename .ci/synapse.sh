#!/usr/bin/env bash
# Install what the real-Synapse test (test/real-synapse/) needs to start Synapse 1.67.0 from its
# source: Debian's system Python and these Debian packages, nothing from pip. Idempotent: when every
# package is already installed it only checks (well under a second) and runs no apt-get at all.
# Exit 0 when /usr/bin/python3 can import Synapse's dependencies at the end, 1 otherwise (the caller
# decides whether that is fatal; CI then sets AC_REQUIRE_SYNAPSE=1 so that the test runs, not skips).
set -u

log() { printf 'synapse.sh: %s\n' "$*" >&2; }

# The runtime dependencies of Synapse 1.67.0 (pyproject.toml) as Debian bookworm packages.
PACKAGES=(
  python3 python3-jsonschema python3-frozendict python3-unpaddedbase64 python3-canonicaljson
  python3-signedjson python3-service-identity python3-twisted python3-treq python3-openssl
  python3-yaml python3-pyasn1 python3-pyasn1-modules python3-bcrypt python3-pil
  python3-sortedcontainers python3-pymacaroons python3-msgpack python3-phonenumbers
  python3-prometheus-client python3-attr python3-netaddr python3-jinja2 python3-bleach
  python3-typing-extensions python3-cryptography python3-ijson python3-matrix-common
  python3-packaging python3-pydantic python3-idna python3-psycopg2
)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done

if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    log "no apt-get here; missing: ${missing[*]}"
    exit 1
  fi
  log "installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Another install may hold dpkg's lock (CI steps, other tools): wait for it rather than fail.
  wait_lock=(-o DPkg::Lock::Timeout=600)
  if ! { apt-get "${wait_lock[@]}" update -qq && apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
    log "could not install the packages"
    exit 1
  fi
else
  log "all ${#PACKAGES[@]} packages already installed"
fi

# The same import check the test makes before it starts Synapse (the system Python, never a pyenv shim).
if /usr/bin/python3 -c 'import twisted, treq, signedjson, canonicaljson, unpaddedbase64, frozendict, jsonschema, pymacaroons, msgpack, phonenumbers, prometheus_client, netaddr, jinja2, bleach, ijson, matrix_common, pydantic, sortedcontainers, bcrypt, PIL, yaml, service_identity, OpenSSL' 2>/dev/null; then
  log "system Python has Synapse's dependencies"
  exit 0
fi
log "system Python still misses a dependency"
exit 1
