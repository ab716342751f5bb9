#!/usr/bin/env bash
# make demo: apply the examples (the provider's, and gse_process_status's with its gse_managed_process)
# against the bundled simulator, show the status, detect an out-of-band stop as
# drift, repair it, and destroy; then run a business's processes as CMDB defines
# them (gse_cmdb_processes' example), change a template in CMDB, apply the
# instances it adds, and destroy. Uses a dev_overrides CLI config: no registry.
# GSE_MODE=gateway runs it through the GSE 2.0 API gateway (gateway_url,
# tenant_id and access_token from the environment) instead of ESB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
work="$root/.demo"
tf=${TF:-$(bash "$root/scripts/terraform-cli.sh")} # make demo TF=/path/to/terraform-or-tofu

mode=${GSE_MODE:-esb}
case "$mode" in esb | gateway) ;; *) echo "demo: GSE_MODE must be esb or gateway, got $mode" >&2; exit 2 ;; esac

rm -rf "$work"
mkdir -p "$work"
"$bin/gse-simulator" -url-file "$work/sim-url" -app-code demo -app-secret demo-secret \
  -tenant-id demo-tenant -access-token demo-token -cmdb-hosts 200 >"$work/simulator.log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$work/sim-url" ] && break; sleep 0.05; done
url=$(cat "$work/sim-url")

cat >"$work/cli.tfrc" <<TFRC
provider_installation {
  dev_overrides {
    "registry.terraform.io/bk-gse/gse" = "$bin"
    "registry.opentofu.org/bk-gse/gse" = "$bin"
  }
  direct {}
}
TFRC
export TF_CLI_CONFIG_FILE="$work/cli.tfrc" TF_IN_AUTOMATION=1
if [ "$mode" = gateway ]; then
  # GSE 2.0 and bk-cmdb through the gateway (the simulator serves both at its root), the tenant and an access token; no ESB endpoint, no app.
  unset BK_COMPONENT_API_URL BK_APP_CODE BK_APP_SECRET BK_USERNAME BK_TOKEN
  export BKAPP_BK_GSE_APIGATEWAY="$url" BKAPP_BK_CC_APIGATEWAY="$url" BK_TENANT_ID=demo-tenant BK_ACCESS_TOKEN=demo-token
else
  unset BKAPP_BK_GSE_APIGATEWAY BKAPP_BK_CC_APIGATEWAY BK_TENANT_ID BK_ACCESS_TOKEN
  export BK_COMPONENT_API_URL="$url" BK_APP_CODE=demo BK_APP_SECRET=demo-secret BK_USERNAME=admin
fi
cp "$root/examples/provider/provider.tf" "$root/examples/data-sources/gse_process_status/data-source.tf" "$work/"
cd "$work"

step() { printf '\n\033[1m=== %s\033[0m\n' "$*"; }
plan_exit() { set +e; "$tf" plan -input=false -detailed-exitcode "$@"; local rc=$?; set -e; return $rc; }

step "simulator on $url ($mode mode); terraform CLI: $tf"
step "terraform apply: register, host and start proc-test on 10.0.0.1 and 10.0.0.2"
"$tf" apply -input=false -auto-approve

step "status from the gse_process_status data source"
"$tf" output agent_status

step "out of band: someone stops proc-test on 10.0.0.2 (GSE unhosts it too)"
curl -fsS -X POST "$url/_sim/drift" -d '{"action":"stop","namespace":"gse","name":"proc-test","bk_cloud_id":0,"ip":"10.0.0.2"}'

step "terraform plan detects the drift"
rc=0; plan_exit || rc=$?
[ "$rc" -eq 2 ] || { echo "demo: expected a plan with changes (exit 2), got exit $rc" >&2; exit 1; }

step "terraform apply repairs it"
"$tf" apply -input=false -auto-approve
"$tf" output agent_status
rc=0; plan_exit >/dev/null || rc=$?
[ "$rc" -eq 0 ] || { echo "demo: expected an empty plan after repair, got exit $rc" >&2; exit 1; }
echo "plan after repair: no changes"

step "terraform destroy"
"$tf" destroy -input=false -auto-approve

step "processes from CMDB: business 2's templates on its production modules, through for_each"
mkdir "$work/cmdb"
cp "$root/examples/provider/provider.tf" "$root/examples/data-sources/gse_cmdb_processes/data-source.tf" "$work/cmdb/"
cd "$work/cmdb"
"$tf" apply -input=false -auto-approve >/dev/null
"$tf" state list
step "in CMDB, nginx goes to 3 instances a host: the plan adds exactly nginx_3"
curl -fsS -X POST "$url/_sim/cmdb/process_template" -d '{"id":1,"fields":{"proc_num":3}}'
rc=0; plan_exit -no-color | grep -E '^  # |Plan:' || rc=$?
"$tf" apply -input=false -auto-approve >/dev/null
rc=0; plan_exit >/dev/null || rc=$?
[ "$rc" -eq 0 ] || { echo "demo: expected an empty plan after the CMDB change was applied, got exit $rc" >&2; exit 1; }
echo "plan after apply: no changes"
"$tf" destroy -input=false -auto-approve >/dev/null

left=$(curl -fsS "$url/_sim/processes")
if [ "$mode" = gateway ]; then
  # GSE 2.0 has no unregister: destroy stops and unhosts, and the record stays.
  case "$left" in *'"hosted":true'*) echo "demo: processes left hosted in the simulator: $left" >&2; exit 1 ;; esac
  step "done: nothing is hosted any more (GSE 2.0 keeps the stopped record: it has no unregister)"
else
  [ "$left" = "[]" ] || { echo "demo: processes left in the simulator: $left" >&2; exit 1; }
  step "done: the simulator is empty again"
fi
