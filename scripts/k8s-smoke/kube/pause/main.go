// Command pause holds a pod's namespaces for the smoke cluster (scripts/k8s-smoke.ts), as the
// registry's pause image does: it waits until SIGINT or SIGTERM and reaps the children it inherits
// as PID 1 of a pod that shares its process namespace.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
