import {
  to = gse_managed_process.agent
  id = "gse/proc-test@0:0:10.0.0.1,0:0:10.0.0.2"
}
