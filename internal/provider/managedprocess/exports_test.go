package managedprocess

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Internals the black-box tests use.

// ResourceWithClient is gse_managed_process configured with c, for
// calling its CRUD directly.
func ResourceWithClient(c *gse.Client) resource.Resource {
	return &managedProcessResource{client: c}
}

type NamespaceTarget = namespaceTarget

var DiscoverProcesses = discoverProcesses
var AddDiscoverError = addDiscoverError
var RawWith = rawWith
