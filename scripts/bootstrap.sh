#!/usr/bin/env bash
# Installs what Baret needs on a fresh Debian/Ubuntu machine, then its npm dependencies.
#   bash scripts/bootstrap.sh          ffmpeg + npm ci
#   bash scripts/bootstrap.sh --test   also Chromium and fonts for the browser tests, and the engines of the
#                                      distributed tests (scripts/engines, cached in ~/.cache/baret-engines)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=()
command -v ffprobe >/dev/null 2>&1 || packages+=(ffmpeg)
if [ "${1:-}" = "--test" ]; then
  command -v chromium >/dev/null 2>&1 || packages+=(chromium)
  [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || packages+=(fonts-dejavu-core)
  # pdftoppm / pdftotext / pdfimages: the PDF report's test turns its pages into PNG and text
  command -v pdftoppm >/dev/null 2>&1 || packages+=(poppler-utils)
fi
if [ ${#packages[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "Installing with apt: ${packages[*]}"
  # Wait for another apt (a second run on this machine, unattended upgrades) instead of failing on its
  # lock: install waits on dpkg's lock by itself (DPkg::Lock::Timeout); update does not wait on the
  # package lists' lock, so it is retried.
  for attempt in $(seq 60); do
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq && break
    [ "$attempt" -eq 60 ] && exit 1
    echo "apt-get update failed (another apt running?); retrying in 10 s"
    sleep 10
  done
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${packages[@]}"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # onnxruntime-node's install step would fetch CUDA libraries from outside the registries: its CPU
  # binary is inside the package (.npmrc says the same; the variable holds whatever npm does with it).
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
fi

if [ "${1:-}" = "--test" ]; then
  bash scripts/engines/install.sh
fi
