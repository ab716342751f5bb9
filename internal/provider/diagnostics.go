package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// addAPIError reports a failed GSE or JOB call: what could not be done to which
// process (a gse.Meta or a gse.JobTarget), the client's account of it (API, hosts, GSE codes and messages,
// task and request ids), and what the user can do next.
func addAPIError(diags *diag.Diagnostics, action string, meta fmt.Stringer, err error, next string) {
	detail := err.Error()
	if next != "" {
		detail += "\n\n" + next
	}
	diags.AddError(fmt.Sprintf("Could not %s process %s", action, meta), detail)
}

// clientFrom takes the client the provider configured; nil before configuration.
func clientFrom(data any, diags *diag.Diagnostics) *gse.Client {
	if data == nil {
		return nil
	}
	c, ok := data.(*gse.Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("Expected *gse.Client, got %T. Please report this issue to the provider developers.", data))
	}
	return c
}

// deadline bounds ctx by an operation's timeout from the timeouts block
// (defaultTimeout when unset). Check diags before using the context.
func deadline(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	d, ds := timeout(ctx, defaultTimeout)
	diags.Append(ds...)
	return context.WithTimeout(ctx, d)
}
