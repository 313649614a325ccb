#!/usr/bin/env bash
# Installs the real engines the distributed adapters are tested against (Kafka, MinIO, FerretDB,
# PostgreSQL, ...) and the deployment tests' tools (install-helm.sh: helm, kubeconform, kustomize and
# the Kubernetes JSON schemas) into one cache folder, so that a second run is fast:
#   ${BARET_ENGINES_DIR:-$HOME/.cache/baret-engines}/<engine>-<version>/
# Each engine has its own install-<engine>.sh beside this file; each is idempotent and installs
# atomically (build in a temp folder, then rename), so an interrupted run leaves nothing half-made.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export BARET_ENGINES_DIR="${BARET_ENGINES_DIR:-$HOME/.cache/baret-engines}"
mkdir -p "$BARET_ENGINES_DIR"
# One install at a time per cache folder: two runs on one machine (two clones tested at once) would
# otherwise both build an engine and the later one replace the folder the earlier one's tests use.
# The second waits here, then finds everything installed and skips it.
exec 9>"$BARET_ENGINES_DIR/.install.lock"
flock 9
shopt -s nullglob
for script in "$here"/install-*.sh; do
  echo "engines: $(basename "$script")"
  bash "$script"
done
