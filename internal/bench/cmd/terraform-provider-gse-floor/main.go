// Command terraform-provider-gse-floor is the provider without API work, a
// measuring instrument bench-e2e runs beside the real provider, never a
// release: create, update and delete return the planned state (its unknown
// values made known: empty strings and collections, zeros), and refresh
// returns the state as it was. Every other RPC (schemas, validation,
// planning, state upgrades) is the provider's own, through the same framework
// and packed server. What it takes is what Terraform and the framework cost
// for these schemas, with no API at all: the floor of bench-e2e's rows.
package main

import "github.com/bk-gse/terraform-provider-gse/internal/launch"

func main() { launch.Serve("dev", withoutAPI) }
