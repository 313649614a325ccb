#!/usr/bin/env bash
# FerretDB 1.24 (the MongoDB wire protocol on a pure-Go SQLite backend) for the MongoDB document
# store tests, built from the small program in scripts/engines/ferretdb (go.mod pins the version).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
VERSION="$(awk '$1 == "require" && $2 == "github.com/FerretDB/FerretDB" {print $3; exit}' "$here/ferretdb/go.mod")"
dest="$BARET_ENGINES_DIR/ferretdb-$VERSION"
if [ -x "$dest/ferretdb" ]; then echo "ferretdb: $dest (present)"; exit 0; fi
command -v go >/dev/null || { echo "ferretdb: Go is needed to build it"; exit 1; }
tmp="$(mktemp -d "$BARET_ENGINES_DIR/.ferretdb-XXXXXX")"
echo "ferretdb: building $VERSION (a few minutes the first time)"
(cd "$here/ferretdb" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$tmp/ferretdb" .)
rm -rf "$dest" && mv "$tmp" "$dest"
echo "ferretdb: $dest"
