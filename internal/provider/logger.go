package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// tfLogger sends the client's log lines to tflog. Masking in tflog is scoped to
// a context, so the secrets are masked again on every line's context.
type tfLogger struct{ secrets []string }

func newTFLogger(secrets ...string) tfLogger {
	var l tfLogger
	for _, s := range secrets {
		if s != "" {
			l.secrets = append(l.secrets, s)
		}
	}
	return l
}

func (l tfLogger) mask(ctx context.Context) context.Context {
	if len(l.secrets) == 0 {
		return ctx
	}
	ctx = tflog.MaskAllFieldValuesStrings(ctx, l.secrets...)
	return tflog.MaskMessageStrings(ctx, l.secrets...)
}

func (l tfLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(l.mask(ctx), msg, fields)
}

func (l tfLogger) Warn(ctx context.Context, msg string, fields map[string]any) {
	tflog.Warn(l.mask(ctx), msg, fields)
}
