package configfile

import "github.com/hashicorp/terraform-plugin-framework/types"

// PushAdvice is pushAdvice for a file of account in business 2.
func PushAdvice(err error, account string, sent bool) string {
	return pushAdvice(err, &configFileModel{Account: types.StringValue(account), BkScopeType: types.StringValue("biz"), BkScopeID: types.StringValue("2")}, sent)
}
