#!/usr/bin/env bash
# README command one: install what is needed, build, and start the service on the embedded default:
# SQLite in a sandbox directory (./.sandbox, or $APPLIANCE_SANDBOX), plain HTTP on 127.0.0.1:8008
# (or $APPLIANCE_LISTEN) and the Unix socket inside the sandbox.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. tools/provision.sh
pnpm install --frozen-lockfile --prefer-offline >/dev/null
build_log="$(mktemp "${TMPDIR:-/tmp}/appliance-build.XXXXXX")"
if ! pnpm exec turbo run build --filter=@appliance/api-server... --filter=@appliance/cli... --output-logs=errors-only >"$build_log" 2>&1; then
  tail -n 40 "$build_log" >&2
  echo "start: the build failed (its whole output: $build_log)." >&2
  exit 1
fi
rm -f "$build_log"
SANDBOX="$(realpath -m "${APPLIANCE_SANDBOX:-.sandbox}")"
LISTEN="${APPLIANCE_LISTEN:-127.0.0.1:8008}"
SOCKET="$SANDBOX/run/appliance/appliance.sock"
CLI="env APPLIANCE_NODE=$(command -v node) $(pwd)/packages/cli/bin/appliance"
mkdir -p "$SANDBOX"
cat >&2 <<TXT

  Appliance admin service — sandbox $SANDBOX, http://$LISTEN
  Create the first admin and a token (in another terminal):
    $CLI admin create --username admin --socket $SOCKET
    TOKEN=\$($CLI token create --name cli --socket $SOCKET)
    curl -s -H "Authorization: Bearer \$TOKEN" http://$LISTEN/api/v1/users
  API reference: http://$LISTEN/api/v1/docs

TXT
exec packages/api-server/bin/appliance-server --root "$SANDBOX" --listen "$LISTEN" "$@"
