// Package simulator serves, in memory, the wire contracts of the BlueKing
// servers the provider talks to, for tests, benchmarks and the demo
// (cmd/gse-simulator). It is independent of the client: it has its own wire
// types, so a client that sends the wrong JSON fails against it. Each
// behaviour cites the public source it follows.
//
// # The hub
//
// Server (simulator.go), built by New(Options), is the http.Handler. It routes
// each request to the endpoint of its family and owns what the families
// share:
//   - the two front doors: ESB's (esb.go: credentials in the body or
//     X-Bkapi-Authorization, its envelope) and the API gateway's
//     (apigateway.go: its plugins, request ids, SetGatewayStatusRewrite),
//     each counting calls, checking credentials and injecting faults;
//   - the request log (Options.RecordRequests, Requests) and the calls per
//     API (Calls, AllCalls; JOB's APIs as "job/...", JOB v3's as "jobv3/...",
//     CMDB's as "cc/...");
//   - the app's quota and the APIs the installation lacks (quota.go:
//     SetQuota, RemoveAPIs);
//   - injected faults (faults.go: AddFault, AddHostFault, FaultsLeft,
//     ClearFaults) and every server's refusals in its own shape (refusals.go);
//   - the task engine (tasks.go: Tasks, SetTaskPolls): JOB's process APIs run
//     through GSE, so GSE's and JOB's tasks are one engine, one log;
//   - the agent on each host (agent.go): what an operation (named op_type
//     codes) does to a process, for GSE and JOB alike; an agent down through
//     both doors (SetAgentDown); and the ids. Its clock (clock.go: the times
//     status entries report, at Options.ClockRate, Advance) and its guard
//     of resident processes (agent_guard.go: SetDiesAfterOperation, a
//     process that dies a chosen time after its next operation and is
//     started again).
//
// # The endpoints
//
// One per family, each holding its own state and knobs, reached from the hub:
//   - GSE() (gse.go, gse_wire.go, gse_operate.go, gse_status.go): GSE's
//     process APIs through ESB; the processes of every host (Processes,
//     Process, Drift), their labels after an update that sends none
//     (Options.UpdateLabels, gse_labels.go).
//   - Gateway() (gateway.go): GSE 2.0 through the API gateway, hosts named by
//     agent id, over the GSE endpoint's processes (AddAgent, SetAgentState).
//   - JOB() (job.go, job_definition.go): JOB's process APIs (ESB job/...),
//     their processes per scope (Processes, Process, Drift, SetContentShape,
//     SetProcessAPIsRemoved, InstancesDown).
//   - JOBv3() (jobv3.go, jobv3_script.go, job_limits.go): JOB's v3 file and
//     script APIs through ESB and bk-job's gateway, on the CMDB endpoint's
//     hosts (SetAgentDown, File, SetFile, Files, SetCommandMissing), what
//     gse_service's health checks find there (jobv3_health.go: the TCP ports
//     of the running instances of CMDB's processes, Listening, SetPortClosed;
//     a script that fails, SetScriptFails, or fails on a host holding a
//     chosen content, SetScriptFailsOnContent), JOB's
//     limits (SetScriptTargetsMax) and its own refusals (a Fault's 1240001,
//     1240002, 9900403).
//   - CMDB() (cmdb.go, cmdb_process.go, cmdb_filter.go): bk-cmdb's host and
//     process listings through ESB and its gateway, over a generated business
//     (Options.CMDBHosts; Hosts, MoveHost, Churn, ProcessTemplates,
//     EditProcessTemplate).
//
// # Locking
//
// One mutex, the hub's, guards the hub and every endpoint: a request reaches
// the state of several families (the gateway operates the GSE endpoint's
// processes; GSE and JOB tasks share the engine and the agent's pids; every
// family takes host faults; JOB v3 targets CMDB's hosts; the generated CMDB
// registers its agents with the gateway). A front door answers under the
// lock and writes the reply after it, so a delayed reply holds up no other
// request; a knob takes the lock itself.
//
// # Admin routes
//
// For the demo and for processes outside Go (cmd/gse-simulator, bench-e2e):
//   - POST /_sim/drift {"action", "namespace", "name", "bk_cloud_id", "ip"}: GSE().Drift
//   - GET /_sim/processes: GSE().Processes
//   - GET /_sim/calls: AllCalls; GET /_sim/tasks: Tasks
//   - GET /_sim/cmdb/hosts: CMDB().Hosts
//   - POST /_sim/cmdb/move {"bk_host_id", "bk_module_id"}: CMDB().MoveHost
//   - GET /_sim/cmdb/process_templates: CMDB().ProcessTemplates
//   - POST /_sim/cmdb/process_template {"id", "fields"}: CMDB().EditProcessTemplate
//   - POST /_sim/job/file {"bk_host_id", "path", "content"}: JOBv3().SetFile (content null deletes)
//   - GET /_sim/job/files/{bk_host_id}: JOBv3().Files (path, size, sha256 of each)
//   - POST /_sim/job/port {"bk_host_id", "port", "closed"}: JOBv3().SetPortClosed
//   - GET /_sim/job/listening/{bk_host_id}: JOBv3().Listening
//   - POST /_sim/clock {"advance"}: Advance, the agents' clock (clock.go)
//   - POST /_sim/job/script_fails {"bk_host_ids", "contains", "exit_code", "output"}: JOBv3().SetScriptFails;
//     with "file_contains" instead of "bk_host_ids": JOBv3().SetScriptFailsOnContent
//
// A POST answers 204, 400 for a body it cannot read, or 404 with why it could
// not act.
package simulator
