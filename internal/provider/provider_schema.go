package provider

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// providerAttributes are every argument of the provider block.
func providerAttributes() map[string]schema.Attribute {
	attrs := whereAttributes()
	maps.Copy(attrs, credentialAttributes())
	maps.Copy(attrs, transportAttributes())
	return attrs
}

// whereAttributes are the provider arguments that say where the APIs are: ESB, the gateways, the tenant.
func whereAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"endpoint": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "ESB root URL, such as `https://paas.example.com`; GSE calls go to `{endpoint}/api/c/compapi/v2/gse/{api}/` and JOB calls to `{endpoint}/api/c/compapi/v2/job/{api}/`. " +
				"Falls back to `BK_COMPONENT_API_URL`. Required (here or in the environment) unless `gateway_url` is set; with `gateway_url`, only the JOB resources and data source need it.",
			Validators: []validator.String{endpointURL()},
		},
		"gateway_url": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "GSE 2.0 root on the BlueKing API gateway, such as `https://bkapi.example.com/api/bk-gse/prod`. When set, every GSE process call goes to " +
				"`{gateway_url}/api/v2/proc/{api}` (agent state: `/api/v2/cluster/list_agent_state`), hosts are addressed by agent id (`{bk_cloud_id}:{ip}` for a host given by ip), " +
				"credentials travel only in the `X-Bkapi-Authorization` header, and hosts given by `agent_id` or an IPv6 address become possible. Falls back to `BKAPP_BK_GSE_APIGATEWAY`.",
			Validators: []validator.String{gatewayURL()},
		},
		"cmdb_gateway_url": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "bk-cmdb root on the BlueKing API gateway, such as `https://bkapi.example.com/api/bk-cmdb/prod`, for `gse_cmdb_hosts`: hosts are listed with " +
				"`{cmdb_gateway_url}/api/v3/hosts/app/{bk_biz_id}/list_hosts`, with the same credentials (in `X-Bkapi-Authorization`) and `tenant_id`. " +
				"Unset, `gse_cmdb_hosts` calls ESB's `cc/list_biz_hosts` under `endpoint`. Falls back to `BKAPP_BK_CC_APIGATEWAY`.",
			Validators: []validator.String{gatewayURL()},
		},
		"job_gateway_url": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "bk-job root on the BlueKing API gateway, such as `https://bkapi.example.com/api/bk-job/prod`, for `gse_config_file`: JOB's v3 file and script APIs go to " +
				"`{job_gateway_url}/api/v3/{api}` with the same credentials (in `X-Bkapi-Authorization`) and `tenant_id`. They need a verified user there: `bk_token` or a user's `access_token` " +
				"(`username` alone is refused unless the gateway exempts the app). Unset, they go to ESB's `jobv3` under `endpoint`. Falls back to `BKAPP_BK_JOB_APIGATEWAY`.",
			Validators: []validator.String{gatewayURL()},
		},
		"tenant_id": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "BlueKing tenant, sent as `X-Bk-Tenant-Id` on every request (ESB and gateway) when set; single-tenant gateways use `default`. Falls back to `BK_TENANT_ID`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
		},
	}
}

// credentialAttributes are the provider arguments that say who calls: the app, the user or an access token.
func credentialAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"access_token": schema.StringAttribute{
			Optional:  true,
			Sensitive: true,
			MarkdownDescription: "BlueKing access token, an alternative to `app_code`/`app_secret` with `username`/`bk_token`; sent as `{\"access_token\": ...}` in `X-Bkapi-Authorization`. " +
				"Falls back to `BK_ACCESS_TOKEN`. Never logged.",
		},
		"app_code": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "BlueKing application ID (`bk_app_code`). Falls back to `BK_APP_CODE`. Required (here or in the environment) unless `access_token` is set.",
		},
		"app_secret": schema.StringAttribute{
			Optional:            true,
			Sensitive:           true,
			MarkdownDescription: "Application secret (`bk_app_secret`), from the developer center. Falls back to `BK_APP_SECRET`. Required (here or in the environment) unless `access_token` is set. Never logged.",
		},
		"username": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "User the calls act as (`bk_username`). It is not a verified user: ESB accepts it only from apps on its `skip_user_auth` whitelist, and the API gateway only from apps it exempts from user verification (CMDB's host listing needs none); elsewhere set `bk_token` or a user's `access_token` (see the troubleshooting guide). Falls back to `BK_USERNAME`. One of `username` and `bk_token` is required unless `access_token` is set.",
		},
		"bk_token": schema.StringAttribute{
			Optional:            true,
			Sensitive:           true,
			MarkdownDescription: "A user's login token (`bk_token` cookie), used instead of `username`. Falls back to `BK_TOKEN`. Never logged.",
		},
		"supplier_account": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Developer account sent as `bk_supplier_account`, for multi-supplier installations. Falls back to `BK_SUPPLIER_ACCOUNT`.",
		},
	}
}

// transportAttributes are the provider arguments of each request: its timeout, retries, rate and TLS.
func transportAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"request_timeout": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "Timeout of one HTTP attempt, as a Go duration such as `30s` or `2m`. Defaults to `30s`. Waiting for asynchronous tasks is bounded by each resource's `timeouts` instead.",
			Validators:          []validator.String{plumbing.Duration()},
		},
		"max_retries": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("How many times a request is retried after a transient failure (connection error, HTTP 5xx), "+
				"with jittered exponential backoff that honours `Retry-After`. 0 to 20; defaults to %d. Operation submits are retried only when the request cannot have started a task. "+
				"A request refused for the app's rate limit (HTTP 429, `1306429`, `1642901`-`1642904`) is not a failure: it waits and is sent again until the resource's or data source's timeout, whatever `max_retries` says.", defaultMaxRetries),
			Validators: []validator.Int64{plumbing.ZeroTo(20)},
		},
		"rate_limit": rateLimitAttribute(),
		"insecure_skip_verify": schema.BoolAttribute{
			Optional:            true,
			MarkdownDescription: "Skip TLS certificate verification. Defaults to `false`; use `ca_cert_pem` for a private CA instead.",
		},
		"ca_cert_pem": schema.StringAttribute{
			Optional:            true,
			MarkdownDescription: "PEM-encoded CA certificate(s) trusted in addition to the system roots, for an ESB behind a private CA.",
			Validators:          []validator.String{caCertPEM()},
		},
	}
}
