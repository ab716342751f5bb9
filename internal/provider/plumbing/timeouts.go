package plumbing

import (
	"context"
	"fmt"
	"strings"
	"time"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// DefaultTimeout bounds each operation of a resource, data source or action
// whose timeouts leave it unset.
const DefaultTimeout = 10 * time.Minute

const (
	timeoutsDescription = "How long each operation may take, as a positive Go duration such as `30s` or `5m` (default `%s`). " +
		"A task still pending at the deadline fails naming its hosts; raise the timeout when agents answer slowly."
	timeoutDescription = "Deadline of %s, a positive duration such as `90s` or `10m` (default `%s`)."
)

// defaultTimeoutText is DefaultTimeout as a user writes it: 10m, not 10m0s.
var defaultTimeoutText = shortDuration(DefaultTimeout)

func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ResourceTimeouts is the timeouts attribute of a resource, described, with
// each duration required to be positive: "-5m" parses as a duration, and would
// otherwise fail at apply as a task that never finished. A description given
// in opts (CreateDescription, ...) replaces the generic one of that operation.
func ResourceTimeouts(ctx context.Context, opts timeouts.Opts) schema.SingleNestedAttribute {
	a, ok := timeouts.Attributes(ctx, opts).(schema.SingleNestedAttribute)
	if !ok {
		panic("timeouts.Attributes is not a SingleNestedAttribute")
	}
	own := map[string]string{"create": opts.CreateDescription, "read": opts.ReadDescription,
		"update": opts.UpdateDescription, "delete": opts.DeleteDescription}
	a.MarkdownDescription = fmt.Sprintf(timeoutsDescription, defaultTimeoutText)
	for name, nested := range a.Attributes {
		s, ok := nested.(schema.StringAttribute)
		if !ok {
			continue
		}
		s.MarkdownDescription = fmt.Sprintf(timeoutDescription, name, defaultTimeoutText)
		if own[name] != "" {
			s.MarkdownDescription = own[name]
		}
		// duration() alone: the library's own check would add a second error
		// for one mistake ("10" lacks a unit) that quotes the value but names
		// no attribute.
		s.Validators = []validator.String{Duration()}
		a.Attributes[name] = s
	}
	return a
}

// DataSourceTimeouts is ResourceTimeouts for a data source (read only).
func DataSourceTimeouts(ctx context.Context) dschema.SingleNestedAttribute {
	a, ok := dstimeouts.Attributes(ctx).(dschema.SingleNestedAttribute)
	if !ok {
		panic("timeouts.Attributes is not a SingleNestedAttribute")
	}
	a.MarkdownDescription = fmt.Sprintf(timeoutsDescription, defaultTimeoutText)
	for name, nested := range a.Attributes {
		if s, ok := nested.(dschema.StringAttribute); ok {
			s.MarkdownDescription = fmt.Sprintf(timeoutDescription, name, defaultTimeoutText)
			s.Validators = []validator.String{Duration()} // alone, as in ResourceTimeouts
			a.Attributes[name] = s
		}
	}
	return a
}
