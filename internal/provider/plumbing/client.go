package plumbing

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// NeedsESB reports, for a JOB resource (what) used with a provider that has
// only gateway_url, that the JOB APIs need endpoint: ESB serves them, the
// GSE gateway does not.
func NeedsESB(c *gse.Client, what string, diags *diag.Diagnostics) {
	if c != nil && !c.ESB() {
		diags.AddError("JOB needs the provider's endpoint",
			what+" calls the JOB platform's APIs, which BlueKing ESB serves; gateway_url serves only GSE's process APIs. "+
				"Set endpoint in the provider block (or BK_COMPONENT_API_URL) to the ESB root, such as https://paas.example.com.")
	}
}

// ClientFrom takes the client the provider configured; nil before configuration.
func ClientFrom(data any, diags *diag.Diagnostics) *gse.Client {
	if data == nil {
		return nil
	}
	c, ok := data.(*gse.Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("Expected *gse.Client, got %T. Please report this issue to the provider developers.", data))
	}
	return c
}

// Deadline bounds ctx by an operation's timeout from the timeouts block
// (DefaultTimeout when unset). Check diags before using the context.
func Deadline(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	d, ds := timeout(ctx, DefaultTimeout)
	diags.Append(ds...)
	return context.WithTimeout(gse.Begin(ctx), d) // its deadline, if paced, is told as such
}
