// Command gse-simulator serves the GSE process-management APIs in memory on
// loopback, for `make demo` and for trying the provider without a BlueKing
// installation. Out-of-band changes: POST /_sim/drift; state: GET /_sim/processes;
// requests per API: GET /_sim/calls; CMDB hosts: GET /_sim/cmdb/hosts.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	s := define(flag.CommandLine)
	flag.Parse()
	sim, err := s.server()
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", s.listen)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	if s.urlFile != "" {
		if err := os.WriteFile(s.urlFile, []byte(url+"\n"), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("gse-simulator listening on", url)
	srv := &http.Server{Handler: sim} //nolint:gosec // loopback demo server
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
		<-stop
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
