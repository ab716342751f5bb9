package gse

import (
	"fmt"
	"slices"
)

// OpType is a GSE process operation (op_type of operate_proc and operate_proc_v2).
type OpType int

// The operations of operate_proc / operate_proc_v2. 5 and 6 do not exist.
const (
	OpStart   OpType = 0
	OpStop    OpType = 1
	OpStatus  OpType = 2
	OpHost    OpType = 3 // register hosting (托管)
	OpUnhost  OpType = 4 // unregister hosting
	OpRestart OpType = 7
	OpReload  OpType = 8
	OpKill    OpType = 9
)

// OpInfo is what the client knows of one op_type; adding an operation is one
// row of ops (and its simulator support).
type OpInfo struct {
	API string // as the API docs name it, in OpType.String
	// Running and Hosted are what a success proves of the host (nil: nothing).
	Running, Hosted *bool
	// Starts: the process should run after it, so wait_running and a
	// rollout's not-running check apply.
	Starts bool
	// Also are the per-host codes besides HostOK that count as success: the
	// operation had nothing to do (already running, not running).
	Also []int
	// OneShotAlso are more codes that count as success when the process is
	// a one-shot (Spec.OneShot): 836 (post-check failed) after a start or
	// restart says it ran and has already exited. bk-nodeman counts it so:
	// apps/backend/components/collections/plugin.py
	// GseOperateProcService.handle_error_code (START / RESTART with
	// GseAutoType.SINGLE_EXECUTION and GseDataErrCode.POST_CHECK_ERROR).
	OneShotAlso []int
}

var yes, no = true, false

var ops = map[OpType]OpInfo{
	OpStart:   {API: "start", Running: &yes, Hosted: &yes, Starts: true, Also: []int{HostAlreadyRunning}, OneShotAlso: []int{HostPostCheck}},
	OpStop:    {API: "stop", Running: &no, Hosted: &no, Also: []int{HostNotRunning}},
	OpStatus:  {API: "status"},
	OpHost:    {API: "register hosting", Hosted: &yes},
	OpUnhost:  {API: "unregister hosting", Hosted: &no, Also: []int{HostNotRunning}},
	OpRestart: {API: "restart", Running: &yes, Starts: true, OneShotAlso: []int{HostPostCheck}},
	OpReload:  {API: "reload", Starts: true},
	OpKill:    {API: "kill", Also: []int{HostNotRunning}},
}

// Info is the row of o; an unknown op_type has none.
func (o OpType) Info() OpInfo { return ops[o] }

func (o OpType) String() string {
	if i, ok := ops[o]; ok {
		return fmt.Sprintf("op_type %d (%s)", int(o), i.API)
	}
	return fmt.Sprintf("op_type %d", int(o))
}

// Succeeded reports whether a per-host code counts as success for o.
func (o OpType) Succeeded(code int) bool {
	return code == HostOK || slices.Contains(ops[o].Also, code)
}

// SucceededOn is Succeeded for an operation on a one-shot process or not (OpInfo.OneShotAlso).
func (o OpType) SucceededOn(code int, oneShot bool) bool {
	return o.Succeeded(code) || (oneShot && slices.Contains(ops[o].OneShotAlso, code))
}
