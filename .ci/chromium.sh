#!/bin/sh
# Debian's chromium for the HTML report test (test/scripts/run/report/html.test.ts, driven by
# playwright-core with executablePath /usr/bin/chromium; no browser download). CI then sets
# AC_REQUIRE_CHROMIUM=1 so that the test cannot skip.
set -eu
if [ -x /usr/bin/chromium ]; then exit 0; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium
