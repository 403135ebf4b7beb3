#!/bin/sh
# The real JavaScript clients of test/clients/ (matrix-bot-sdk, matrix-js-sdk), from npm by name, into
# their own fixture package: never in the root package.json, so a user's `npm install` stays lean.
# --ignore-scripts: matrix-bot-sdk's encryption binding downloads a native library from GitHub in its
# postinstall; the tests use no encryption (test/clients/npm-helpers.ts stands in for the binding).
# CI then sets AC_REQUIRE_CLIENTS=1 so that the tests cannot skip.
set -eu
cd "$(dirname "$0")/../test/fixtures/clients"
npm ci --ignore-scripts --no-audit --no-fund
