#!/usr/bin/env bash
# Installs the Debian packages the system tests drive (real mkfs, dockerd, compose, testparm, age…).
# chromium: the web UI's browser tests (playwright-core drives it; no browser download).
# Runs apt only when something is missing; needs root (without root it only reports).
set -euo pipefail
PACKAGES=(docker.io docker-compose mergerfs snapraid age xfsprogs btrfs-progs e2fsprogs exfatprogs
  dosfstools parted samba-common-bin zstd busybox-static openssl util-linux mount fdisk strace
  systemd shellcheck curl smartmontools rsync restic nut-server nut-client samba smbclient
  docker-registry attr acl dpkg-dev pebble chromium)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-host-deps: missing Debian packages (${missing[*]}); run as root to install them" >&2
  exit 0
fi
echo "install-host-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
