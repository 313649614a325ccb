#!/usr/bin/env bash
# The MinIO server, built from source with the Go module proxy, for the S3 object store tests.
# MinIO's RELEASE tags are refused by the module proxy ("not available"), so the version is pinned
# as the pseudo-version of the repository's last commit (2026-02-12; the project is archived).
set -euo pipefail
VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
dest="$BARET_ENGINES_DIR/minio-$VERSION"
if [ -x "$dest/minio" ]; then echo "minio: $dest (present)"; exit 0; fi
command -v go >/dev/null || { echo "minio: Go is needed to build it (apt-get install golang, or the Go toolchain)"; exit 1; }
tmp="$(mktemp -d "$BARET_ENGINES_DIR/.minio-XXXXXX")"
echo "minio: building $VERSION (a few minutes the first time)"
CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$tmp" go install "github.com/minio/minio@$VERSION"
rm -rf "$dest" && mv "$tmp" "$dest"
echo "minio: $dest"
