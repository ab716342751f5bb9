// Command terraform-provider-gse is the Terraform provider for the process
// management APIs of Tencent BlueKing GSE.
package main

import (
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

// serve is the server Terraform talks to: the provider's own, or, built with
// -tags noapi, one without API work (noapi.go).
var serve = func(s tfprotov6.ProviderServer) tfprotov6.ProviderServer { return s }

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	var packedOpts []packed.Option
	if quietUnlessAsked() {
		packedOpts = append(packedOpts, packed.Quiet())
	}
	tuneGC() // memory.go
	stopProfiling := startProfiling()
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// packed.NewProtocol6, not providerserver.Serve: it packs the
	// attributes that hold a value per host for the framework.
	err := tf6server.Serve("registry.terraform.io/bk-gse/gse", func() tfprotov6.ProviderServer {
		s, err := packed.NewProtocol6(provider.New(version)(), packedOpts...)()
		if err != nil {
			log.Fatal(err)
		}
		return serve(s)
	}, opts...)
	stopProfiling()
	if err != nil {
		log.Fatal(err)
	}
}

// logLevelVars are the terraform-plugin-log levels of the SDK loggers
// (terraform-plugin-go, its protocol logger, terraform-plugin-framework) and
// of the provider's own logger.
var logLevelVars = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"}

// quietUnlessAsked turns the loggers off when the user asked for no logs (none
// of TF_LOG, TF_LOG_PROVIDER*, TF_LOG_SDK*, TF_LOG_PATH* is set). Terraform then
// discards every plugin log line, but the SDK would still format them: a
// trace line per attribute and element, most of the provider's CPU on a plan
// of thousands of hosts. With any of those set, nothing changes. It says
// whether it turned them off.
func quietUnlessAsked() bool {
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TF_LOG" || strings.HasPrefix(name, "TF_LOG_PROVIDER") || strings.HasPrefix(name, "TF_LOG_SDK") || strings.HasPrefix(name, "TF_LOG_PATH") {
			return false
		}
	}
	for _, name := range logLevelVars {
		_ = os.Setenv(name, "off")
	}
	return true
}
