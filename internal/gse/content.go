package gse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Status is what a result's content says of a process on one host: each
// instance of a status answer (op_type 2), and the isAuto flag a control
// answer carries. Only these are read: the agent's other fields (startTime,
// stime, utime, usage figures) change type between versions and documents.
type Status struct {
	Instances []Instance
	IsAuto    *bool // value[].isAuto of a control answer; nil when it does not say
}

// Instance is one instance of a process in a status answer.
type Instance struct {
	PID     int64 // -1 (or 0) when not running
	IsAuto  *bool // whether the agent hosts it; nil when the answer does not say
	Version string
}

// Running reports whether any instance runs: a process with several instances
// (instance_num) is up on the host as long as one of them is.
func (s Status) Running() bool { return s.RunningInstances() > 0 }

// RunningInstances counts the instances with a pid.
func (s Status) RunningInstances() int {
	n := 0
	for _, in := range s.Instances {
		if in.PID > 0 {
			n++
		}
	}
	return n
}

// PID is the pid of the first running instance, else -1.
func (s Status) PID() int64 {
	for _, in := range s.Instances {
		if in.PID > 0 {
			return in.PID
		}
	}
	return -1
}

// Version is the version of the first running instance that reports one, else of any instance.
func (s Status) Version() string {
	for _, running := range []bool{true, false} {
		for _, in := range s.Instances {
			if in.Version != "" && (!running || in.PID > 0) {
				return in.Version
			}
		}
	}
	return ""
}

// Hosted says whether the agent hosts the process: true when any instance (or
// the control answer) says so, false when some say and none says so, nil when
// the answer does not say (the public get_proc_result example has no isAuto).
// Hosting is registered per process, not per instance, so one instance that
// reports it is enough.
func (s Status) Hosted() *bool {
	var said *bool
	for _, f := range append(instanceFlags(s.Instances), s.IsAuto) {
		if f == nil {
			continue
		}
		if *f {
			return f
		}
		said = f
	}
	return said
}

func instanceFlags(ins []Instance) []*bool {
	out := make([]*bool, len(ins))
	for i, in := range ins {
		out[i] = in.IsAuto
	}
	return out
}

// The wire shapes of content, reduced to the fields Status needs.
type wireContent struct {
	Process []struct {
		Instance []struct {
			PID     *flexInt    `json:"pid"`
			IsAuto  *flexBool   `json:"isAuto"`
			Version *flexString `json:"version"`
		} `json:"instance"`
	} `json:"process"`
	Value []struct {
		IsAuto *flexBool `json:"isAuto"`
	} `json:"value"`
}

// ParseContent reads a result's content: a JSON document, sent as a string
// (GSE's own replies) or as an object (the get_proc_result documentation); see
// HostResult. Empty content is an empty Status.
func ParseContent(s string) (Status, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) { // sent twice encoded
		if err := json.Unmarshal([]byte(s), &s); err != nil {
			return Status{}, contentError(err)
		}
		s = strings.TrimSpace(s)
	}
	if s == "" || s == "null" {
		return Status{}, nil
	}
	var w wireContent
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return Status{}, contentError(err)
	}
	var st Status
	for _, p := range w.Process {
		for _, in := range p.Instance {
			i := Instance{PID: -1, IsAuto: in.IsAuto.ptr(), Version: string(in.Version.orEmpty())}
			if in.PID != nil && in.PID.ok {
				i.PID = in.PID.n
			}
			st.Instances = append(st.Instances, i)
		}
	}
	for _, v := range w.Value {
		if f := v.IsAuto.ptr(); f != nil && (st.IsAuto == nil || *f) {
			st.IsAuto = f
		}
	}
	return st, nil
}

// contentShape is the documented content, for errors.
const contentShape = `{"process":[{"instance":[{"pid":1234,"isAuto":true,"version":"1.0"}]}]}, or a control answer's {"value":[{"isAuto":true}]}`

// contentError says what is wrong with a content in JSON's terms (a list, an
// object), not in the decoder's (Go types).
func contentError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("result content is not JSON (%s, at byte %d); the documented content is %s", syntax, syntax.Offset, contentShape)
	case errors.As(err, &typ):
		where := "the content is"
		if f := strings.TrimPrefix(typ.Field, "."); f != "" {
			where = f + " holds"
		}
		return fmt.Errorf("result content is not the documented JSON: %s %s where %s belongs; the documented content is %s", where, jsonKind(typ.Value), goKind(typ.Type), contentShape)
	}
	return fmt.Errorf("result content is not the documented JSON: %w", err)
}

// jsonKind names a JSON value as UnmarshalTypeError reports it ("number 1.5", "array").
func jsonKind(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	}
	return "a " + kind
}

// goKind names the JSON a decoder type takes.
func goKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	}
	return "a " + t.Kind().String()
}

// flexBool accepts the agent's spellings of a flag: true/false, 1/0, "true"/"1";
// anything else ("", null, "yes") says nothing.
type flexBool struct {
	v, ok bool
}

func (b *flexBool) UnmarshalJSON(data []byte) error {
	switch strings.ToLower(strings.Trim(string(data), `"`)) {
	case "true", "1":
		*b = flexBool{true, true}
	case "false", "0":
		*b = flexBool{false, true}
	}
	return nil
}

func (b *flexBool) ptr() *bool {
	if b == nil || !b.ok {
		return nil
	}
	v := b.v
	return &v
}

// flexInt accepts a number (integral or not) or a number written as a string;
// anything else ("", null, an object) says nothing.
type flexInt struct {
	n  int64
	ok bool
}

func (n *flexInt) UnmarshalJSON(data []byte) error {
	s := strings.TrimSpace(strings.Trim(string(data), `"`))
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = flexInt{i, true}
	} else if f, err := strconv.ParseFloat(s, 64); err == nil && f >= -1<<62 && f <= 1<<62 {
		*n = flexInt{int64(f), true}
	}
	return nil
}

// flexString accepts a string, or a number as its JSON text; anything else is empty.
type flexString string

func (s *flexString) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '"':
		var v string
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*s = flexString(v)
	case len(data) > 0 && (data[0] == '-' || (data[0] >= '0' && data[0] <= '9')):
		*s = flexString(data)
	}
	return nil
}

func (s *flexString) orEmpty() flexString {
	if s == nil {
		return ""
	}
	return *s
}

// rawContent is a result's content as received: the string itself when it is
// a JSON string, the JSON text when it is an object (as the get_proc_result
// documentation shows it), empty when null.
type rawContent string

func (c *rawContent) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*c = ""
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*c = rawContent(s)
	default:
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			return err
		}
		*c = rawContent(b.String())
	}
	return nil
}
