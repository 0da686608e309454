#!/usr/bin/env bash
# README command two: install everything needed, then build, typecheck, lint and run every test.
# Works on a fresh clone with only Node 20 and npm (provisions Node 24 and pnpm; as root it also
# installs the Debian packages the system tests use; tests start and stop their own private dockerd).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. tools/provision.sh
bash tools/install-host-deps.sh
modprobe loop 2>/dev/null || true
pnpm install --frozen-lockfile --prefer-offline >/dev/null
rm -rf packages/*/.reports tools/*/.reports
status=0
pnpm exec turbo run build typecheck --output-logs=errors-only || status=$?
if [ $status -eq 0 ]; then pnpm exec biome ci . --reporter=summary || status=$?; fi
if [ $status -eq 0 ]; then bash tools/lint-shell.sh || status=$?; fi
if [ $status -eq 0 ]; then node tools/lint-packages.mjs || status=$?; fi
if [ $status -eq 0 ]; then pnpm exec turbo run test --concurrency=2 --continue --output-logs=full || status=$?; fi
node tools/test-summary.mjs || true
exit $status
