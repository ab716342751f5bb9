package plumbing

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// AddAPIError reports a failed GSE or JOB call: what could not be done to which
// process (a gse.Meta or a gse.JobTarget), the client's account of it (API, hosts, GSE codes and messages,
// task and request ids), advice keyed on what the client says went wrong,
// and what the user can do next.
func AddAPIError(diags *diag.Diagnostics, action string, meta fmt.Stringer, err error, next string) {
	detail := err.Error()
	if a := advice(err, action); a != "" {
		detail += "\n\n" + a
	}
	if next != "" {
		detail += "\n\n" + next
	}
	diags.AddError(fmt.Sprintf("Could not %s process %s", action, meta), detail)
}

// advice turns the client's typed errors into what a Terraform user can do
// after action (create, read, ...: it names the timeout to raise). The client
// describes the API only; the arguments to change live here.
func advice(err error, action string) string {
	var he *gse.HostsError
	if !errors.As(err, &he) {
		return CallAdvice(err)
	}
	var lines []string
	for _, code := range he.Codes() {
		if a := hostAdvice(code); a != "" {
			lines = append(lines, fmt.Sprintf("%s (%s)", a, hostsWith(he, code)))
		}
	}
	timeout := "the timeout"
	if name, _, _ := strings.Cut(action, " "); slices.Contains([]string{"create", "read", "update", "delete"}, name) {
		timeout = name
	}
	why := CallAdvice(he.Cause)
	if isPlainDeadline(he.Cause) {
		why = ""
	}
	switch {
	case (len(he.NotActed) > 0 || len(he.Pending) > 0) && why != "":
		lines = append(lines, why)
	case len(he.Pending) > 0 && he.TaskID != "":
		lines = append(lines, fmt.Sprintf("GSE had not finished task %s on the pending hosts when the timeout passed: a slow task "+
			"(a slow start command, a busy agent) or a GSE agent that does not answer. Raise %s in the resource's timeouts block, "+
			"or check the GSE agent on them.", he.TaskID, timeout))
	case len(he.Pending) > 0:
		lines = append(lines, fmt.Sprintf("GSE had not answered for the pending hosts when the timeout passed: raise %s in the "+
			"resource's timeouts block, or check the GSE agent on them.", timeout))
	case len(he.NotActed) > 0:
		lines = append(lines, fmt.Sprintf("The timeout passed before the request was sent, so nothing was done on these hosts: "+
			"raise %s in the resource's timeouts block.", timeout))
	}
	return strings.Join(lines, "\n")
}

// isPlainDeadline: the context ended while the calls were succeeding and
// nothing held them back.
func isPlainDeadline(err error) bool {
	var ie *gse.InterruptedError
	var pe *gse.PacedError
	return errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &ie) && !errors.As(err, &pe)
}

// rootSettings are the provider arguments, with their environment
// variables, that set each root the client calls.
var rootSettings = map[gse.Root]struct{ name, env string }{
	gse.RootESB:         {"endpoint", "BK_COMPONENT_API_URL"},
	gse.RootGateway:     {"gateway_url", "BKAPP_BK_GSE_APIGATEWAY"},
	gse.RootCMDBGateway: {"cmdb_gateway_url", "BKAPP_BK_CC_APIGATEWAY"},
	gse.RootJobGateway:  {"job_gateway_url", "BKAPP_BK_JOB_APIGATEWAY"},
}

// CallAdvice advises on a call that failed as a whole.
func CallAdvice(err error) string {
	var re *gse.ReplyError
	var ie *gse.InterruptedError
	var unknownCA x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &unknownCA) || errors.As(err, &verify):
		return "The server's TLS certificate is not trusted: set ca_cert_pem in the provider block to the certificate of its CA " +
			"(insecure_skip_verify = true only for a test installation)."
	}
	var removed *gse.RemovedError
	if errors.As(err, &removed) {
		return fmt.Sprintf("This installation's JOB (3.7 or later) no longer serves %s: use gse_managed_process (or gse_process_operation with target = gse). "+
			"The JOB resources, data source and operations need JOB 3.6 or earlier.", removed.API)
	}
	if a := quotaAdvice(err); a != "" {
		return a
	}
	var ce *gse.ConnectError
	if errors.As(err, &ce) {
		return fmt.Sprintf("Nothing answers at %s: check %s in the provider block (or %s), its scheme, host and port, "+
			"and that this machine reaches it.", ce.URL, rootSettings[ce.Root].name, rootSettings[ce.Root].env)
	}
	var ae *gse.APIError
	if errors.As(err, &ae) {
		if a := refusalAdvice(ae); a != "" {
			return a
		}
	}
	switch {
	case gse.KindOf(err) == gse.KindServer || errors.As(err, &re) || errors.As(err, &ie):
		return "The endpoint kept failing (the last error is above): check endpoint and the ESB or gateway in front of GSE, then apply again. " +
			"max_retries and request_timeout in the provider block set how long each call is retried."
	case errors.Is(err, context.DeadlineExceeded):
		return "The timeout passed: raise it in the resource's timeouts block."
	}
	return ""
}

// GSE allows one registration per namespace, name and host. A replacement
// with lifecycle { create_before_destroy = true } creates the new object
// while the old one still holds that registration: through ESB the new
// register is refused (850); through the gateway, where an operation with a
// spec creates and no 850 exists, the new object would take the old one's
// process over, and the old object's destroy would then stop or unhost it.
// The provider does not see lifecycle blocks, at plan or apply, and cannot
// tell the old object from any other owner, so it refuses the create before
// acting, with this advice (also that of 850; the gateway's check is refuseLive).
const RegisteredElsewhere = "The process is already registered on these hosts outside this resource: GSE allows one registration per " +
	"namespace, name and host. If this create is a replacement with lifecycle { create_before_destroy = true }, the registration is the " +
	"object being replaced: remove create_before_destroy (Terraform then destroys the old object first) and run " +
	"terraform apply -replace=<address>, because the next plan no longer shows the replacement. " +
	"Otherwise import it (terraform import or an import block) instead of creating it, or unregister it first"

// hostAdvice advises on a per-host code.
func hostAdvice(code int) string {
	switch code {
	case gse.HostAgentAbnormal:
		return "The GSE agent is abnormal or offline on these hosts: repair it (for example with bk-nodeman) and apply again"
	case gse.HostUnknownOp:
		return "GSE does not know this operation on these hosts: check the GSE version"
	case gse.HostPostCheck:
		return "The command ran but the process is not in the expected state: check the commands, pid_path and the process log"
	case gse.HostRegistered:
		return RegisteredElsewhere
	case gse.HostCommandFailed:
		return "The command failed on the host; its output is in the message"
	}
	return ""
}

// hostsWith lists the hosts that failed with code.
func hostsWith(he *gse.HostsError, code int) string {
	var ips []string
	for _, f := range he.Failures {
		if f.Code == code {
			ips = append(ips, cmp.Or(f.Host.IP, "agent_id "+f.Host.AgentID))
		}
	}
	return strings.Join(ips, ", ")
}
