#!/usr/bin/env bash
# Installs the real components the tests run against, from Debian's packages:
# Prometheus + promtool (gpuplane account) and headless Chromium (HTML reports).
set -euo pipefail
need=()
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "system-deps: missing ${need[*]}; run as root or install them (apt-get install ${need[*]})" >&2
  exit 0
fi
echo "system-deps: installing ${need[*]} from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${need[@]}" | sort -u) >/dev/null
# The prometheus package starts a system service where systemd runs; tests start their own server.
