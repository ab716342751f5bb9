# GSE 2.0 through the BlueKing API gateway. Every argument may come from the
# environment instead: BKAPP_BK_GSE_APIGATEWAY, BK_TENANT_ID, BK_ACCESS_TOKEN
# (or BK_APP_CODE, BK_APP_SECRET and BK_USERNAME), and BK_COMPONENT_API_URL.
provider "gse" {
  gateway_url = "https://bkapi.example.com/api/bk-gse/prod"
  tenant_id   = "default"
  # access_token from BK_ACCESS_TOKEN; or app_code, app_secret and username.

  # Only the JOB resources (gse_job_managed_process, gse_job_process_status,
  # the job target of gse_process_operation) need the ESB endpoint.
  endpoint = "https://paas.example.com"
}

# Hosts by agent id (GSE 2.0), or by ip and bk_cloud_id (sent as {bk_cloud_id}:{ip}),
# IPv6 included.
resource "gse_managed_process" "agent" {
  meta = { namespace = "gse", name = "proc-test" }
  hosts = [
    { agent_id = "0200000007525400f355781710390005465c" },
    { ip = "10.0.0.1", bk_cloud_id = 0 },
    { ip = "2001:db8::1", bk_cloud_id = 0 },
  ]
  running = true
  spec = {
    identity       = { proc_name = "proc-test", setup_path = "/data/gsetest", pid_path = "/data/gsetest/proc-test.pid", user = "root" }
    control        = { start_cmd = "./start.sh", stop_cmd = "./stop.sh" }
    monitor_policy = { auto_type = 1 }
    # Through the gateway, resource is sent only when cpu or mem is set (not 0):
    # default limits made restarts fail on real installations.
    resource = { cpu = 0, mem = 0 }
  }
}
