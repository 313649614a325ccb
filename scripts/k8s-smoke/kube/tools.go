//go:build tools

// Package kube only pins versions: scripts/k8s-smoke.ts runs `go build k8s.io/kubernetes/cmd/...` here.
package kube

import (
	_ "k8s.io/kubernetes/pkg/kubelet"
)
