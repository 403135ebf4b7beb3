#!/usr/bin/env bash
# Make a Docker engine reachable for the deploy test, idempotently:
# - an engine that already answers is used as it is;
# - otherwise docker.io is installed from Debian (when dockerd is missing) and dockerd is started in
#   the background with no bridge and no iptables rules, so that containers only get host networking
#   and every connection stays on loopback.
# Exit 0 when `docker info` answers at the end, 1 otherwise (the caller decides whether that is fatal).
set -u

log() { printf 'docker.sh: %s\n' "$*" >&2; }

engine_up() { docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && engine_up; then
  log "engine already running"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "installing docker.io from Debian"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends docker.io >/dev/null; }; then
    log "could not install docker.io"
    exit 1
  fi
fi

if ! command -v docker >/dev/null 2>&1; then
  log "no docker client after install"
  exit 1
fi

logfile="${DOCKERD_LOG:-/tmp/admin-conformance-dockerd.log}"
# Another dockerd may be starting (an earlier call of this script): wait for it instead of racing it.
if ! pgrep -x dockerd >/dev/null 2>&1; then
  log "starting dockerd (log: $logfile)"
  nohup dockerd --bridge=none --iptables=false --ip6tables=false >"$logfile" 2>&1 </dev/null &
  disown || true
fi

for _ in $(seq 1 60); do
  if engine_up; then
    log "engine is up"
    exit 0
  fi
  sleep 1
done
log "engine did not answer within 60 s; last lines of $logfile:"
tail -n 20 "$logfile" >&2 2>/dev/null || true
exit 1
