package gsekit

import "github.com/bk-gse/terraform-provider-gse/internal/gse"

// OpCommand is the spec.control command each operation needs set, as
// GSEKit checks it before it sends the operation (gsekit
// apps/gsekit/pipeline_plugins/components/collections/gse.py
// OP_TYPE_PROCESS_ATTR_MAP, is_op_cmd_configured): a start and a hosting
// (op 3, whose agent pulls the process up with it) need start_cmd, a stop
// stop_cmd, a restart restart_cmd, a reload reload_cmd and a kill kill_cmd
// (CMDB's face_stop_cmd). Unhosting and a status read need none. GSEKit
// also requires work_path, pid_file and user for every operation: the
// schema of a spec requires them (setup_path, pid_path, user).
var OpCommand = map[gse.OpType]string{
	gse.OpStart: "start_cmd", gse.OpHost: "start_cmd", gse.OpStop: "stop_cmd",
	gse.OpRestart: "restart_cmd", gse.OpReload: "reload_cmd", gse.OpKill: "kill_cmd",
}
