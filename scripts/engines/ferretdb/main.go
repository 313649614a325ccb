// Command ferretdb runs FerretDB 1.x (the MongoDB wire protocol) on its pure-Go SQLite backend,
// for Baret's MongoDB document store tests. A bare `go install .../cmd/ferretdb` binary stops at
// start for want of the build's version.txt; the embeddable package does not need it.
//
//	ferretdb -listen 127.0.0.1:27017 -dir /tmp/ferretdb-data
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "address to listen on")
	dir := flag.String("dir", "", "folder of the SQLite databases")
	flag.Parse()
	if *dir == "" {
		log.Fatal("-dir is required")
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		log.Fatal(err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Handler:   "sqlite",
		SQLiteURL: "file:" + *dir + "/",
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log.Printf("ferretdb listening on %s", *listen)
	f.Run(ctx)
}
