package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// The provider block's URLs and certificates, checked at plan time as the
// client reads them when it is configured.

// endpointURL checks endpoint as the client will (gse.ParseEndpoint).
func endpointURL() validator.String {
	return plumbing.StringCheck{Desc: "must be an http:// or https:// URL", Check: func(s string) error {
		if _, err := gse.ParseEndpoint(s); err != nil {
			return fmt.Errorf("must be an http:// or https:// URL with a host and no query, such as https://paas.example.com")
		}
		return nil
	}}
}

// gatewayURL checks gateway_url as the client will (gse.ParseGatewayURL).
func gatewayURL() validator.String {
	return plumbing.StringCheck{Desc: "must be an http:// or https:// URL", Check: func(s string) error {
		if _, err := gse.ParseGatewayURL(s); err != nil {
			return fmt.Errorf("must be an http:// or https:// URL with a host and no query, such as https://bkapi.example.com/api/bk-gse/prod")
		}
		return nil
	}}
}

// caCertPEM checks ca_cert_pem as the client will (gse.CACertPool).
func caCertPEM() validator.String {
	return plumbing.StringCheck{Desc: "must hold PEM-encoded certificates", Check: func(s string) error {
		if _, err := gse.CACertPool(s); err != nil {
			return fmt.Errorf("must hold at least one PEM-encoded certificate (-----BEGIN CERTIFICATE-----)")
		}
		return nil
	}}
}
