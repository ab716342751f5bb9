// Package provider is the Terraform provider for the GSE process-management
// APIs: its configuration, the registration of every resource family (each
// a package below this one) and the provider functions.
package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/cmdb"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/configfile"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/jobmanagedprocess"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/managedprocess"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/processoperation"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/service"
)

const defaultMaxRetries = 5

var (
	_ provider.Provider                  = (*gseProvider)(nil)
	_ provider.ProviderWithFunctions     = (*gseProvider)(nil)
	_ provider.ProviderWithListResources = (*gseProvider)(nil)
	_ provider.ProviderWithActions       = (*gseProvider)(nil)
)

type gseProvider struct {
	version string
	// tune adjusts the client configuration; tests use it to poll and retry in milliseconds.
	tune func(*gse.Config)
}

// New returns the provider factory for providerserver.
func New(version string) func() provider.Provider {
	return NewTuned(version, nil)
}

// NewTuned is New with tune adjusting every client configuration the
// provider builds; the acceptance tests poll and retry in milliseconds with it.
func NewTuned(version string, tune func(*gse.Config)) func() provider.Provider {
	return func() provider.Provider { return &gseProvider{version: version, tune: tune} }
}

type providerModel struct {
	Endpoint           types.String  `tfsdk:"endpoint"`
	AppCode            types.String  `tfsdk:"app_code"`
	AppSecret          types.String  `tfsdk:"app_secret"`
	Username           types.String  `tfsdk:"username"`
	BkToken            types.String  `tfsdk:"bk_token"`
	SupplierAccount    types.String  `tfsdk:"supplier_account"`
	RequestTimeout     types.String  `tfsdk:"request_timeout"`
	MaxRetries         types.Int64   `tfsdk:"max_retries"`
	InsecureSkipVerify types.Bool    `tfsdk:"insecure_skip_verify"`
	CACertPEM          types.String  `tfsdk:"ca_cert_pem"`
	GatewayURL         types.String  `tfsdk:"gateway_url"`
	TenantID           types.String  `tfsdk:"tenant_id"`
	AccessToken        types.String  `tfsdk:"access_token"`
	CMDBGatewayURL     types.String  `tfsdk:"cmdb_gateway_url"`
	JobGatewayURL      types.String  `tfsdk:"job_gateway_url"`
	RateLimit          types.Float64 `tfsdk:"rate_limit"`
}

func (p *gseProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gse"
	resp.Version = p.version
}

func (p *gseProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Declares the processes that the Tencent BlueKing GSE agent registers and hosts (托管), " +
			"through the GSE process-management APIs served by BlueKing ESB (GSE 1.0 APIs, `endpoint`) or by the BlueKing API gateway (GSE 2.0, `gateway_url`). " +
			"Every argument falls back to the environment variable named in its description.",
		Attributes: providerAttributes(),
	}
}

// setting is one string argument with its environment fallback.
type setting struct {
	attr, env string
	value     types.String
}

func (s setting) resolve() string {
	if !s.value.IsNull() {
		return s.value.ValueString()
	}
	return os.Getenv(s.env)
}

func (p *gseProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	settings := m.settings()
	values := resolve(settings, &resp.Diagnostics)
	checkRequired(settings, values, &resp.Diagnostics)
	rps := rateLimit(m.RateLimit, &resp.Diagnostics)
	checkURLs(settings, values, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	client, err := gse.New(p.clientConfig(&m, values, rps))
	if err != nil {
		resp.Diagnostics.AddError("Invalid GSE provider configuration", err.Error())
		return
	}
	resp.ResourceData = client
	resp.DataSourceData = client
	resp.ListResourceData = client
	resp.ActionData = client
}

// settings are the arguments that fall back to an environment variable.
func (m *providerModel) settings() []setting {
	return []setting{
		{"endpoint", "BK_COMPONENT_API_URL", m.Endpoint},
		{"app_code", "BK_APP_CODE", m.AppCode},
		{"app_secret", "BK_APP_SECRET", m.AppSecret},
		{"username", "BK_USERNAME", m.Username},
		{"bk_token", "BK_TOKEN", m.BkToken},
		{"supplier_account", "BK_SUPPLIER_ACCOUNT", m.SupplierAccount},
		{"gateway_url", "BKAPP_BK_GSE_APIGATEWAY", m.GatewayURL},
		{"tenant_id", "BK_TENANT_ID", m.TenantID},
		{"access_token", "BK_ACCESS_TOKEN", m.AccessToken},
		{"cmdb_gateway_url", "BKAPP_BK_CC_APIGATEWAY", m.CMDBGatewayURL},
		{"job_gateway_url", "BKAPP_BK_JOB_APIGATEWAY", m.JobGatewayURL},
	}
}

// resolve is the value of each setting, from the provider block or its
// environment variable; an unknown one is an error.
func resolve(settings []setting, diags *diag.Diagnostics) map[string]string {
	values := map[string]string{}
	for _, s := range settings {
		if s.value.IsUnknown() {
			diags.AddAttributeError(path.Root(s.attr), "Unknown GSE provider argument",
				fmt.Sprintf("The provider cannot be configured while %s is unknown. Set it to a value known at plan time, or set %s.", s.attr, s.env))
			continue
		}
		values[s.attr] = s.resolve()
	}
	return values
}

// checkURLs checks the endpoint and every gateway URL that is set.
func checkURLs(settings []setting, values map[string]string, diags *diag.Diagnostics) {
	if e := values["endpoint"]; e != "" {
		if _, err := gse.ParseEndpoint(e); err != nil {
			diags.AddAttributeError(path.Root("endpoint"), "Invalid GSE endpoint",
				fmt.Sprintf("%s (set in endpoint or BK_COMPONENT_API_URL).", err))
		}
	}
	for _, s := range settings {
		if g := values[s.attr]; g != "" && strings.HasSuffix(s.attr, "gateway_url") {
			if _, err := gse.ParseGatewayURL(g); err != nil {
				diags.AddAttributeError(path.Root(s.attr), "Invalid gateway URL",
					fmt.Sprintf("%s (set in %s or %s).", err, s.attr, s.env))
			}
		}
	}
}

// clientConfig is the client's configuration from m and the resolved settings.
func (p *gseProvider) clientConfig(m *providerModel, values map[string]string, rps float64) gse.Config {
	cfg := gse.Config{
		Endpoint: values["endpoint"], AppCode: values["app_code"], AppSecret: values["app_secret"],
		Username: values["username"], BkToken: values["bk_token"], SupplierAccount: values["supplier_account"],
		GatewayURL: values["gateway_url"], CMDBGatewayURL: values["cmdb_gateway_url"], JobGatewayURL: values["job_gateway_url"], TenantID: values["tenant_id"], AccessToken: values["access_token"],
		MaxRetries: defaultMaxRetries, RateLimit: rps, // RequestTimeout: the client's default (30s) unless set
		PaceDir:            paceDir(),
		InsecureSkipVerify: m.InsecureSkipVerify.ValueBool(), CACertPEM: m.CACertPEM.ValueString(),
		UserAgent: "terraform-provider-gse/" + p.version + " (+https://registry.terraform.io/providers/bk-gse/gse)",
		Logger:    newTFLogger(values["app_secret"], values["bk_token"], values["access_token"]),
	}
	if !m.RequestTimeout.IsNull() {
		cfg.RequestTimeout, _ = time.ParseDuration(m.RequestTimeout.ValueString()) // checked by its validator
	}
	if !m.MaxRetries.IsNull() {
		cfg.MaxRetries = int(m.MaxRetries.ValueInt64())
	}
	if p.tune != nil {
		p.tune(&cfg)
	}
	return cfg
}

// checkRequired requires, unless unknown: an endpoint or a gateway URL; an
// access token, or an app (code and secret) with a user (username or bk_token).
func checkRequired(settings []setting, values map[string]string, diags *diag.Diagnostics) {
	unknown := map[string]bool{}
	for _, s := range settings {
		unknown[s.attr] = s.value.IsUnknown()
	}
	missing := func(attrs ...string) bool {
		for _, a := range attrs {
			if values[a] != "" || unknown[a] {
				return false
			}
		}
		return true
	}
	if missing("endpoint", "gateway_url") {
		diags.AddAttributeError(path.Root("endpoint"), "Missing GSE provider argument",
			"Set endpoint (or BK_COMPONENT_API_URL) to the ESB root for GSE 1.0, or gateway_url (or BKAPP_BK_GSE_APIGATEWAY) to the GSE 2.0 root on the API gateway.")
	}
	if !missing("access_token") {
		return
	}
	for _, s := range settings {
		if (s.attr == "app_code" || s.attr == "app_secret") && missing(s.attr) {
			diags.AddAttributeError(path.Root(s.attr), "Missing GSE provider argument",
				fmt.Sprintf("Set %s in the provider block or the %s environment variable (or access_token / BK_ACCESS_TOKEN instead of the app and user).", s.attr, s.env))
		}
	}
	if missing("username", "bk_token") {
		diags.AddAttributeError(path.Root("username"), "Missing GSE user",
			"Set username (or BK_USERNAME) to the user the calls act as, or bk_token (or BK_TOKEN) to a login token, or access_token (or BK_ACCESS_TOKEN) instead.")
	}
}

// The registration lists: everything the provider serves, in one place.

func (p *gseProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{managedprocess.NewResource, jobmanagedprocess.NewResource, processoperation.NewResource, configfile.NewResource, service.NewResource}
}

func (p *gseProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{managedprocess.NewStatusDataSource, jobmanagedprocess.NewStatusDataSource, cmdb.NewHostsDataSource, cmdb.NewProcessesDataSource}
}

// Functions need Terraform 1.8 or later; older CLIs ignore them.
func (p *gseProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{newAgentIDFunction, newParseStatusContentFunction}
}

// ListResources serve `terraform query` (Terraform 1.14+).
func (p *gseProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{managedprocess.NewList}
}

// Actions run with `terraform apply -invoke` or from action_trigger (Terraform 1.14+).
func (p *gseProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{processoperation.NewAction(service.Operate)}
}
