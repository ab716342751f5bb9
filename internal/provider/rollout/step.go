package rollout

import (
	"context"
	"fmt"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

// Step is one disruptive step to roll out over targets of type T.
type Step[T Target] struct {
	What   string       // the step, such as "restart", for logs and errors
	Target fmt.Stringer // what the step acts on: the process, or the file
	// Run performs the step on one batch through the client's usual path
	// (Proc.Operate, Job.Operate, Job.PushConfigFile, ...), returning an
	// error Settle reads.
	Run func(ctx context.Context, batch []T) error
	// Place orders the targets (see order); required.
	Place func(T) Place
	// Settle reads Run's error as the targets of batch that failed, each
	// with why; ok is false when the error has no account of its own per
	// target (the batch failed as a whole). nil reads a *gse.HostsError
	// naming the targets' hosts by Key (settleHosts).
	Settle func(batch []T, err error) (failed []Failure[T], ok bool)
	// NotRunning, when set, is what wait_running polls. nil for steps that
	// leave nothing running.
	NotRunning *RunningCheck[T]
	Progress   func(msg string) // the action's progress messages; nil elsewhere
}

// Failure is a target of a batch that did not come through, and why.
type Failure[T Target] struct {
	Target T
	Reason string
}

func (f Failure[T]) String() string { return f.Target.String() + ": " + f.Reason }

// RunningCheck reads which targets of batch GSE does not report running
// (status 1, pid > 0), by Target.Key, each with what GSE reported; client
// paces the reads on its poll schedule.
type RunningCheck[T Target] struct {
	Client *gse.Client
	Query  func(ctx context.Context, batch []T) (map[string]string, error)
}

// Verb names op in a rollout's messages ("rolling restart of ..."): as the
// API docs name it, hosting and unhosting with their op_type.
func Verb(op gse.OpType) string {
	switch op {
	case gse.OpStatus:
		return "status query"
	case gse.OpHost:
		return "hosting (op_type 3)"
	case gse.OpUnhost:
		return "unhosting (op_type 4)"
	}
	if api := op.Info().API; api != "" {
		return api
	}
	return op.String()
}
