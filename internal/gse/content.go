package gse

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Content is the JSON document GSE puts, as a string, in a result's content:
// Process for a status query (op_type 2), Value for the other operations.
type Content struct {
	Process []ContentProcess `json:"process"`
	Value   []ContentValue   `json:"value"`
}

// ContentProcess is one process of a status answer.
type ContentProcess struct {
	ProcName string            `json:"procname"`
	Instance []ContentInstance `json:"instance"`
}

// ContentInstance is one instance of a process; PID -1 means not running.
type ContentInstance struct {
	PID         int64    `json:"pid"`
	IsAuto      flexBool `json:"isAuto"`
	Version     string   `json:"version"`
	CPUUsage    float64  `json:"cpuUsage"`
	PhyMemUsage float64  `json:"phyMemUsage"`
	StartTime   int64    `json:"startTime"`
}

// ContentValue is one process of a control operation's answer.
type ContentValue struct {
	ProcName   string          `json:"procName"`
	SetupPath  string          `json:"setupPath"`
	FuncID     string          `json:"funcID"`
	InstanceID string          `json:"instanceID"`
	Result     json.RawMessage `json:"result"`
	IsAuto     flexBool        `json:"isAuto"`
}

// ParseContent decodes a result's content; empty content gives an empty Content.
func ParseContent(s string) (*Content, error) {
	var c Content
	if strings.TrimSpace(s) == "" {
		return &c, nil
	}
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return nil, fmt.Errorf("result content is not the documented JSON: %w", err)
	}
	return &c, nil
}

// flexBool accepts the agent's spellings of a flag: true/false, 1/0, "true"/"1".
type flexBool bool

func (b *flexBool) UnmarshalJSON(data []byte) error {
	switch strings.Trim(string(data), `"`) {
	case "true", "1":
		*b = true
	case "false", "0", "", "null":
		*b = false
	default:
		return fmt.Errorf("not a flag: %s", data)
	}
	return nil
}
