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
	}
	return plumbing.CallAdvice(err)
}
