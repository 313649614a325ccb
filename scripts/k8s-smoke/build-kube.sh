#!/usr/bin/env bash
# Builds the Kubernetes binaries for npm run k8s:smoke into $1 (a versioned folder under BARET_ENGINES_DIR).
# One package at a time at low priority (-p 1, nice): the machine is shared.
set -euo pipefail
out=$1; version=$2
here=$(cd "$(dirname "$0")/kube" && pwd)
mkdir -p "$out"
minor=${version#v1.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
ldflags="$ldflags -X k8s.io/client-go/pkg/version.gitVersion=$version -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
cd "$here"
export CGO_ENABLED=0 GOFLAGS=-mod=mod
for cmd in kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl; do
  [ -x "$out/$cmd" ] && continue
  echo "building $cmd $version ($(date -u +%T))"
  nice -n 5 go build -p 1 -trimpath -tags providerless -ldflags "$ldflags" -o "$out/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd"
  mv "$out/$cmd.tmp" "$out/$cmd"
done
echo "built $(date -u +%T)"
