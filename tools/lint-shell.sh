#!/usr/bin/env bash
# Lint step: shellcheck on every shell script of the project (tools/, .ci/ and the packages' launchers
# and scripts): the files named *.sh and those whose first line runs sh or bash.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v shellcheck >/dev/null || { echo "lint-shell: shellcheck is missing; install Debian's shellcheck package (tools/install-host-deps.sh does, as root)." >&2; exit 1; }
scripts=()
while IFS= read -r -d '' f; do
  case "$f" in *.sh) scripts+=("$f"); continue ;; esac
  if head -n 1 "$f" | grep -qE '^#!.*[/ ](ba)?sh( |$)'; then scripts+=("$f"); fi
done < <(find tools .ci packages -type d \( -name node_modules -o -name dist -o -name .turbo \) -prune -o -type f -print0)
shellcheck --external-sources "${scripts[@]}"
echo "lint-shell: ${#scripts[@]} scripts pass shellcheck"
