package launch

import (
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/bk-gse/terraform-provider-gse/internal/provider"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/packed"
)

// Serve parses the command line (-debug), quiets the loggers unless the
// user asked for logs, tunes the collector, starts the profiles
// TF_GSE_PPROF_DIR asks for, and serves the provider of version to
// Terraform until it is done; it exits the process on failure. wrap, when
// not nil, wraps the server Terraform talks to.
func Serve(version string, wrap func(tfprotov6.ProviderServer) tfprotov6.ProviderServer) {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	var packedOpts []packed.Option
	if quietUnlessAsked() {
		packedOpts = append(packedOpts, packed.Quiet())
	}
	tuneGC()
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
		if wrap != nil {
			return wrap(s)
		}
		return s
	}, opts...)
	stopProfiling()
	if err != nil {
		log.Fatal(err)
	}
}
