package packed

import (
	"context"
	"reflect"
)

// Quiet is the option of NewProtocol6 for a process whose loggers are all off
// (TF_LOG_SDK, TF_LOG_SDK_PROTO, TF_LOG_SDK_FRAMEWORK and TF_LOG_PROVIDER set
// to "off"): the framework is handed each resource RPC's context without the
// loggers tf6server put in it. terraform-plugin-framework v1.19 still copies
// a logger's options and fields (terraform-plugin-log v0.11,
// tfsdklog.SubsystemSetField) for every attribute it validates or plans,
// for lines no level lets through: a twentieth of a refresh's CPU. Without
// the loggers, those calls find nothing to copy; logging, which was off,
// stays off; deadlines, cancellation and every other value of the context
// stay.
func Quiet() Option { return func(s *server) { s.quiet = true } }

// Option changes what NewProtocol6 serves.
type Option func(*server)

// logPackage is where terraform-plugin-log keeps the type of every key it
// puts in a context.
const logPackage = "github.com/hashicorp/terraform-plugin-log/internal/logging"

// withoutLoggers is a context with no terraform-plugin-log values.
type withoutLoggers struct{ context.Context }

func (c withoutLoggers) Value(key any) any {
	if t := reflect.TypeOf(key); t != nil && t.PkgPath() == logPackage {
		return nil
	}
	return c.Context.Value(key)
}

// forFramework is ctx as the framework gets it.
func (s server) forFramework(ctx context.Context) context.Context {
	if s.quiet {
		return withoutLoggers{ctx}
	}
	return ctx
}
