package cmdb

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/provider/plumbing"
)

// joinReasons lists up to most lines, then how many more (more formats the count).
func joinReasons(lines []string, most int, more string) string {
	if len(lines) > most {
		lines = append(lines[:most:most], fmt.Sprintf(more, len(lines)-most))
	}
	return strings.Join(lines, "\n")
}

// cmdbAdvice says what a user can do about a failed host listing.
func cmdbAdvice(c *gse.Client, err error) string {
	var changed *gse.FleetChangedError
	var ae *gse.APIError
	switch {
	case errors.As(err, &changed):
		return "Hosts were moving in or out of the selection the whole time (a transfer or scale-out in progress): apply again once it has settled."
	case !c.ESB() && !c.CMDBGateway():
		return "Set cmdb_gateway_url (or BKAPP_BK_CC_APIGATEWAY) to the bk-cmdb root on the API gateway, or endpoint (or BK_COMPONENT_API_URL) to call CMDB through ESB."
	case gse.KindOf(err) == gse.KindParams || errors.As(err, &ae) && ae.Code == gse.CodeCMDBParams:
		return "CMDB refused the query: check bk_biz_id, bk_set_ids, bk_module_ids and the fields and operators of filter against the message."
	case errors.As(err, &ae) && ae.Kind() == gse.KindPermission && ae.API == gse.APIListProcessRelatedInfo:
		return hiddenAPIAdvice(c, ae.Root)
	}
	return plumbing.CallAdvice(err)
}

// adviceOf is cmdbAdvice for the calls of c, as cmdbfilter.CheckFields takes it.
func adviceOf(c *gse.Client) func(error) string {
	return func(err error) string { return cmdbAdvice(c, err) }
}

// hiddenAPIAdvice says how an app gets list_process_related_info, refused
// through root. bk-cmdb publishes it for GSEKit alone: on its gateway with
// isPublic: false (docs/apidoc/apigw/backend/bk_apigw_resources_bk-cmdb.yaml),
// which the developer center leaves out of what an app may apply for
// (blueking-apigateway src/dashboard/apigateway/apigateway/apis/open/permission/views.py
// lists get_released_public_resources only), and on ESB with is_hidden: true
// (docs/apidoc/cc/cc.yaml), which ESB makes a component that is not public
// (blueking-apigateway src/esb/esb/esb/management/utils/channel_tools.py),
// likewise left out (filter_active_and_public_components). Only the
// maintainers can grant it; the other door may already be open.
func hiddenAPIAdvice(c *gse.Client, root gse.Root) string {
	if root == gse.RootCMDBGateway {
		other := "unset cmdb_gateway_url (BKAPP_BK_CC_APIGATEWAY) to read CMDB through ESB"
		if !c.ESB() {
			other = "set endpoint (BK_COMPONENT_API_URL) and unset cmdb_gateway_url (BKAPP_BK_CC_APIGATEWAY) to read CMDB through ESB"
		}
		return "list_process_related_info is not public on the bk-cmdb gateway: the developer center does not offer it, and only the gateway's maintainers can grant it. " +
			"Ask the bk-cmdb administrators to grant list_process_related_info to the app in app_code; or, where the app may call ESB's cc component list_process_related_info, " + other + "."
	}
	return "ESB's cc component list_process_related_info is hidden: the developer center does not offer it, and only the ESB's administrators can grant it. " +
		"Ask them to grant it to the app in app_code; or, where the bk-cmdb gateway has granted the app list_process_related_info, set cmdb_gateway_url (BKAPP_BK_CC_APIGATEWAY) to read CMDB through it."
}
