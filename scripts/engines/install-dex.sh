#!/usr/bin/env bash
# Dex, the OpenID Connect provider the single sign-on tests sign in at (issue 30, docs/adr/0022),
# built from source with the Go module proxy. Dex's v2 tags are refused by the proxy (its module path
# has no /v2), so the version is pinned as the pseudo-version of the v2.45.1 release commit. Its
# go.mod replaces github.com/dexidp/dex/api/v2 with a folder the module zip does not hold, so
# `go install` cannot build it: the module is downloaded, that one replace dropped (the same api/v2
# v2.4.0 comes from the proxy instead) and cmd/dex built. CGO off: the tests use memory storage.
set -euo pipefail
VERSION="v0.0.0-20260303133905-11d2eeb52b42" # v2.45.1
dest="$BARET_ENGINES_DIR/dex-$VERSION"
if [ -x "$dest/dex" ]; then echo "dex: $dest (present)"; exit 0; fi
command -v go >/dev/null || { echo "dex: Go is needed to build it (apt-get install golang, or the Go toolchain)"; exit 1; }
tmp="$(mktemp -d "$BARET_ENGINES_DIR/.dex-XXXXXX")"
echo "dex: building $VERSION (a minute or two the first time)"
src="$(GOFLAGS=-mod=mod go mod download -json "github.com/dexidp/dex@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -d "$src" ] || { echo "dex: the module download gave no folder"; exit 1; }
cp -r "$src" "$tmp/src" && chmod -R u+w "$tmp/src"
sed -i '/^replace github.com\/dexidp\/dex\/api\/v2 =>/d' "$tmp/src/go.mod"
(cd "$tmp/src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$tmp/dex" ./cmd/dex)
rm -rf "$tmp/src"
rm -rf "$dest" && mv "$tmp" "$dest"
echo "dex: $dest"
