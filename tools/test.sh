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
# The toolchain variables this shell has (registry trust, caches, store, temp dir): turbo must hand
# each of them to the test tasks, and tools/packaging/test/toolchain.test.ts fails when it does not.
toolchain=()
for v in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR npm_config_cache npm_config_store_dir \
  npm_config_cafile npm_config_registry npm_config_userconfig TMPDIR XDG_CACHE_HOME HTTPS_PROXY HTTP_PROXY \
  NO_PROXY https_proxy http_proxy no_proxy; do
  if [ -n "${!v:-}" ]; then toolchain+=("$v"); fi
done
APPLIANCE_TOOLCHAIN_ENV="$(IFS=,; echo "${toolchain[*]}")"
export APPLIANCE_TOOLCHAIN_ENV
status=0
pnpm exec turbo run build typecheck --output-logs=errors-only || status=$?
if [ $status -eq 0 ]; then pnpm exec biome ci . --reporter=summary || status=$?; fi
if [ $status -eq 0 ]; then bash tools/lint-shell.sh || status=$?; fi
if [ $status -eq 0 ]; then node tools/lint-packages.mjs || status=$?; fi
if [ $status -eq 0 ]; then pnpm exec turbo run test --concurrency=2 --continue --output-logs=full || status=$?; fi
node tools/test-summary.mjs || true
exit $status
