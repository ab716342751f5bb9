package plumbing

import (
	"fmt"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// gatewayNames are the API gateways behind each root, as the developer
// center lists them: where a grant is applied for.
var gatewayNames = map[gse.Root]string{
	gse.RootESB:         "bk-esb (ESB's components, where ESB sits behind the API gateway)",
	gse.RootGateway:     "bk-gse",
	gse.RootCMDBGateway: "bk-cmdb",
	gse.RootJobGateway:  "bk-job",
}

// refusalAdvice says what to do about a call the installation refused:
// which credential, tenant_id, the gateway's IP whitelist, or which grant
// on which gateway.
func refusalAdvice(ae *gse.APIError) string {
	switch ae.Kind() {
	case gse.KindAuth:
		return credentialAdvice(ae)
	case gse.KindPermission:
		if ae.Code == gse.CodeESBNoPermission {
			return fmt.Sprintf("The app has no permission for the ESB component %s: in the BlueKing developer center, apply for it for the app in app_code, then apply again.", ae.API)
		}
		return fmt.Sprintf("The app has no permission for %s on the %s gateway: in the BlueKing developer center, apply for the %s gateway permission of %s for the app in app_code, then apply again.",
			ae.API, gatewayNames[ae.Root], gatewayNames[ae.Root], ae.API)
	case gse.KindTenant:
		return "The gateway refused the tenant (the reason above says which: [AH1] a global app sent no X-Bk-Tenant-Id; [AH2], [GH] the header names another tenant than the app's or the gateway's; " +
			"[GA], [GU], [AU] the app, user and gateway belong to different tenants): set tenant_id (BK_TENANT_ID) to the tenant of the gateway and the app (`default` on single-tenant installations), " +
			"or use an app and user of that tenant."
	case gse.KindRestricted:
		if ae.Code == gse.CodeGatewayUserRestricted {
			return "The gateway's user restriction refuses this user for the API: set username or bk_token (BK_USERNAME, BK_TOKEN) to a user it allows, or ask the gateway's maintainers."
		}
		return "The gateway's IP restriction refuses this machine's address (the reason above names it): ask the gateway's maintainers to add it to the whitelist of the app or the API, or run Terraform from an allowed host."
	case gse.KindParams:
		if ae.Code == gse.CodeGatewayBodyTooBig {
			return "The request was too large for the gateway even when split per process: split the hosts over several resources."
		}
		return "The installation refused the request's parameters: fix the values named in the message."
	}
	return ""
}

// credentialAdvice names the credential a refusal is about and how to fix it.
func credentialAdvice(ae *gse.APIError) string {
	msg := strings.ToLower(ae.Message)
	switch {
	case ae.Code == gse.CodeCMDBNoAuthItem:
		return "bk-cmdb found no user or supplier account in the request (the message names which): set username or bk_token (BK_USERNAME, BK_TOKEN), and tenant_id (BK_TENANT_ID) through the bk-cmdb gateway."
	case strings.Contains(msg, "access_token"):
		return "access_token (BK_ACCESS_TOKEN) was refused: it may be invalid or expired, or an application token where the API needs a user's. Renew it, or set app_code, app_secret and username (or bk_token) instead."
	case strings.Contains(msg, "bk_username is not verified"):
		return "The gateway never takes bk_username as a verified user: an API that needs one accepts it only from apps on the gateway's exemption list. " +
			"Set bk_token (BK_TOKEN) or a user's access_token (BK_ACCESS_TOKEN) instead of username, or ask the gateway's maintainers to exempt the app."
	case ae.Root == gse.RootESB && strings.Contains(msg, "user authentication failed") && ae.Credential == "bk_app_code/bk_app_secret with bk_username":
		return "ESB takes bk_username alone only from apps on its skip_user_auth whitelist (user_auth::skip_user_auth): set bk_token (BK_TOKEN) or access_token (BK_ACCESS_TOKEN) instead of username, " +
			"or ask the ESB's maintainers to whitelist the app."
	case strings.Contains(msg, "user"), strings.Contains(msg, "bk_token"):
		return "The user was refused: check username or bk_token (BK_USERNAME, BK_TOKEN; a bk_token expires with its login session), or set access_token (BK_ACCESS_TOKEN)."
	}
	return "The app was refused: check app_code and app_secret (BK_APP_CODE, BK_APP_SECRET) against the app in the BlueKing developer center, or set access_token (BK_ACCESS_TOKEN)."
}
