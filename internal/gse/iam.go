package gse

import (
	"encoding/json"
	"fmt"
	"strings"
)

// IAMPermission is what a 9900403 reply's permission names: the IAM actions
// the user lacks, each on its resources, in BlueKing IAM's apply-permission
// shape (bk-job esb-sdk model/iam OpenApiApplyPermissionDTO, EsbActionDTO,
// EsbRelatedResourceTypeDTO, EsbInstanceDTO, filled by common-iam
// AuthServiceImpl.buildEsbAuthFailResp; bk-cmdb metadata.IamPermission is
// the same shape).
type IAMPermission struct {
	SystemID   string      `json:"system_id"`
	SystemName string      `json:"system_name"`
	Actions    []IAMAction `json:"actions"`
}

// IAMAction is one action the user lacks, and the resources it is needed on.
type IAMAction struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Resources []IAMResourceType `json:"related_resource_types"`
}

// IAMResourceType is the resources of one type an action is needed on: each
// instance a path from the topmost ancestor (a business) to the resource.
type IAMResourceType struct {
	SystemID  string          `json:"system_id"`
	Type      string          `json:"type"`
	TypeName  string          `json:"type_name"`
	Instances [][]IAMInstance `json:"instances"`
}

// IAMInstance is one resource of an instance path.
type IAMInstance struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	TypeName string `json:"type_name"`
	Name     string `json:"name"`
}

// iamPermission reads a reply's permission, or nil when it has none or
// another shape.
func iamPermission(raw json.RawMessage) *IAMPermission {
	var p IAMPermission
	if json.Unmarshal(raw, &p) != nil || len(p.Actions) == 0 {
		return nil
	}
	return &p
}

// iamShown bounds the resources named per type: a script on 50,000 hosts
// lacks the permission on each.
const iamShown = 5

// String names each action (its id, and its name where IAM gives one) and
// its resources, the first few of each type and how many more.
func (p *IAMPermission) String() string {
	var acts []string
	for _, a := range p.Actions {
		s := a.ID
		if a.Name != "" && a.Name != a.ID {
			s += " (" + a.Name + ")"
		}
		var on []string
		for _, r := range a.Resources {
			on = append(on, r.String())
		}
		if len(on) > 0 {
			s += " on " + strings.Join(on, " and ")
		}
		acts = append(acts, s)
	}
	system := p.SystemID
	if p.SystemName != "" && p.SystemName != p.SystemID {
		system += " (" + p.SystemName + ")"
	}
	return fmt.Sprintf("the user lacks the IAM permission of %s to %s", system, strings.Join(acts, "; "))
}

func (r IAMResourceType) String() string {
	kind := r.Type
	if r.TypeName != "" {
		kind = r.TypeName
	}
	if len(r.Instances) == 0 {
		return "any " + kind
	}
	var names []string
	for _, path := range r.Instances[:min(len(r.Instances), iamShown)] {
		if len(path) > 0 {
			names = append(names, path[len(path)-1].label())
		}
	}
	s := kind + " " + strings.Join(names, ", ")
	if more := len(r.Instances) - iamShown; more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// label is an instance's name, with its id where the two differ.
func (i IAMInstance) label() string {
	switch {
	case i.Name == "":
		return i.ID
	case i.ID == "" || i.ID == i.Name:
		return i.Name
	}
	return i.Name + " (" + i.ID + ")"
}
