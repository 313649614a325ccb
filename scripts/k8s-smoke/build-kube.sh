#!/usr/bin/env bash
# Builds the Kubernetes binaries for npm run k8s:smoke into $1 (a versioned folder under BARET_ENGINES_DIR)
# from the Go module proxy (kube/go.mod pins k8s.io/kubernetes and its staging modules).
# At most two compiles at a time (-p 2), at lower priority: the machine is shared.
set -euo pipefail
out=$1; version=$2
here=$(cd "$(dirname "$0")/kube" && pwd)
mkdir -p "$out"
minor=${version#v1.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
ldflags="$ldflags -X k8s.io/client-go/pkg/version.gitVersion=$version -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
missing=()
for cmd in kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl; do
  [ -x "$out/$cmd" ] || missing+=("k8s.io/kubernetes/cmd/$cmd")
done
[ ${#missing[@]} -eq 0 ] && { echo "kubernetes $version: $out (present)"; exit 0; }
echo "building ${missing[*]##*/} $version ($(date -u +%T); about an hour on a busy 2-core machine the first time)"
cd "$here"
tmp=$(mktemp -d "$out/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 GOFLAGS=-mod=mod nice -n 5 go build -p 2 -trimpath -tags providerless -ldflags "$ldflags" -o "$tmp/" "${missing[@]}"
mv "$tmp"/* "$out/"
echo "built $(date -u +%T)"
