#!/usr/bin/env bash
# README command one: install what is needed, build, and start the service on the embedded default:
# SQLite in a sandbox directory (./.sandbox, or $APPLIANCE_SANDBOX), plain HTTP on 127.0.0.1:8008
# (or $APPLIANCE_LISTEN) and the Unix socket inside the sandbox.
# --smb: the service also runs its own smbd for the sandbox on 127.0.0.1:4450 (or
# $APPLIANCE_SAMBA_PORT), every Samba file under the sandbox (docs/configuration.md, samba.sandbox).
# Other arguments go to `appliance serve`.
set -euo pipefail
args=()
smb=0
for arg in "$@"; do
  if [ "$arg" = "--smb" ]; then smb=1; else args+=("$arg"); fi
done
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. tools/provision.sh
pnpm install --frozen-lockfile --prefer-offline >/dev/null
build_log="$(mktemp "${TMPDIR:-/tmp}/appliance-build.XXXXXX")"
if ! pnpm exec turbo run build --filter=@appliance/api-server... --filter=@appliance/cli... --filter=@appliance/web --output-logs=errors-only >"$build_log" 2>&1; then
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
if [ "$smb" = 1 ]; then
  export APPLIANCE_SAMBA_SANDBOX=1 APPLIANCE_SAMBA_PORT="${APPLIANCE_SAMBA_PORT:-4450}"
  cat >&2 <<TXT
  SMB: the sandbox's own smbd on 127.0.0.1:$APPLIANCE_SAMBA_PORT (needs root and Debian's samba).
  Every user given a password gets a Unix account on this machine (no home, no login shell),
  removed with the user. After creating users, a share and its access:
    smbclient //127.0.0.1/SHARE -p $APPLIANCE_SAMBA_PORT -U USER

TXT
fi
exec packages/api-server/bin/appliance-server --root "$SANDBOX" --listen "$LISTEN" ${args[@]+"${args[@]}"}
