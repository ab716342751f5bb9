package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// stringCheck turns a check of a known string into a plan-time validator.
type stringCheck struct {
	desc  string
	check func(string) error
}

func (v stringCheck) Description(context.Context) string         { return v.desc }
func (v stringCheck) MarkdownDescription(context.Context) string { return v.desc }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		name := attrName(req.Path)
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+name,
			fmt.Sprintf("%s %s, got %q.", name, err, req.ConfigValue.ValueString()))
	}
}

// attrName names an attribute for a message: its path, or inside a set (whose
// elements print as whole values) its own name.
func attrName(p path.Path) string {
	s := p.String()
	if strings.Contains(s, "[Value(") {
		if last, _ := p.Steps().LastStep(); last != nil {
			return last.String()
		}
	}
	return s
}

var absPathRE = regexp.MustCompile(`^(/|[A-Za-z]:[\\/])`)

func absolutePath() validator.String {
	return stringvalidator.RegexMatches(absPathRE, `must be an absolute path, such as /data/app or C:\app`)
}

// GSE joins names into result keys with ':', and import IDs use '/', '@' and ','.
var metaNameRE = regexp.MustCompile(`^[^:/@,\s]+$`)

func metaName() validator.String {
	return stringvalidator.RegexMatches(metaNameRE, "must be non-empty and hold none of ':', '/', '@', ',' or whitespace")
}

func duration() validator.String {
	return stringCheck{"must be a positive Go duration such as 30s", func(s string) error {
		if d, err := time.ParseDuration(s); err != nil || d <= 0 {
			return fmt.Errorf("must be a positive duration such as 30s, 90s or 2m")
		}
		return nil
	}}
}

func endpointURL() validator.String {
	return stringCheck{"must be an http:// or https:// URL", func(s string) error {
		if _, err := gse.ParseEndpoint(s); err != nil {
			return fmt.Errorf("must be an http:// or https:// URL with a host and no query, such as https://paas.example.com")
		}
		return nil
	}}
}

// gatewayURL checks gateway_url as the client will (gse.ParseGatewayURL).
func gatewayURL() validator.String {
	return stringCheck{"must be an http:// or https:// URL", func(s string) error {
		if _, err := gse.ParseGatewayURL(s); err != nil {
			return fmt.Errorf("must be an http:// or https:// URL with a host and no query, such as https://bkapi.example.com/api/bk-gse/prod")
		}
		return nil
	}}
}

// caCertPEM checks ca_cert_pem as the client will (gse.CACertPool).
func caCertPEM() validator.String {
	return stringCheck{"must hold PEM-encoded certificates", func(s string) error {
		if _, err := gse.CACertPool(s); err != nil {
			return fmt.Errorf("must hold at least one PEM-encoded certificate (-----BEGIN CERTIFICATE-----)")
		}
		return nil
	}}
}
