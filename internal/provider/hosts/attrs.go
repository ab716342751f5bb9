package hosts

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The host schemas of the resources and data sources other than
// gse_managed_process.hosts (Schema): hosts by ip and bk_cloud_id,
// and for GSE processes by agent_id too.

// hostRefResourceAttributes are the ip and bk_cloud_id of a host in a resource schema.
func hostRefResourceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"ip":          schema.StringAttribute{Required: true, MarkdownDescription: hostIPDesc},
		"bk_cloud_id": schema.Int64Attribute{Required: true, MarkdownDescription: hostCloudDesc},
	}
}

// GSERefAttributes are the attributes of a host of a GSE process that a
// data source reads: by ip and bk_cloud_id, or by agent_id.
func GSERefAttributes() map[string]dschema.Attribute {
	return map[string]dschema.Attribute{
		"ip":          dschema.StringAttribute{Optional: true, MarkdownDescription: gseHostIPDesc},
		"bk_cloud_id": dschema.Int64Attribute{Optional: true, MarkdownDescription: gseHostCloudDesc},
		"agent_id":    dschema.StringAttribute{Optional: true, MarkdownDescription: hostAgentDesc},
	}
}

// GSERefSetAttribute is RefSetAttribute for the hosts of a GSE
// process (the GSE target of gse_process_operation): agent_id besides ip and bk_cloud_id.
func GSERefSetAttribute(desc string) schema.SetNestedAttribute {
	return schema.SetNestedAttribute{
		Required: true, MarkdownDescription: desc + " Each host may appear once, by `agent_id` or by `bk_cloud_id` and IP.",
		Validators: []validator.Set{setvalidator.SizeAtLeast(1), refsValidator{}},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"ip":          schema.StringAttribute{Optional: true, MarkdownDescription: gseHostIPDesc},
			"bk_cloud_id": schema.Int64Attribute{Optional: true, MarkdownDescription: gseHostCloudDesc},
			"agent_id":    schema.StringAttribute{Optional: true, MarkdownDescription: hostAgentDesc},
		}},
	}
}

// RefSetAttribute is a set of hosts by ip and bk_cloud_id: the hosts of a
// GSE target and the ip_list of a JOB process in gse_process_operation, whose
// every input replaces the resource, so the order needs no plan modifier.
func RefSetAttribute(desc string) schema.SetNestedAttribute {
	return schema.SetNestedAttribute{
		Required: true, MarkdownDescription: desc + " Each `bk_cloud_id` and IP pair may appear once.",
		Validators:   []validator.Set{setvalidator.SizeAtLeast(1), refsValidator{}},
		NestedObject: schema.NestedAttributeObject{Attributes: hostRefResourceAttributes()},
	}
}

// ListNestedAttribute is a list of hosts of a GSE process with the elements
// of gse_managed_process.hosts, each attribute optional, for a resource that
// takes hosts inside a larger value (gse_service.processes): as
// gse_cmdb_processes.groups gives them, or written by hand.
func ListNestedAttribute(desc string) schema.ListNestedAttribute {
	attrs := make(map[string]schema.Attribute, len(hostElement))
	for _, e := range hostElement {
		switch e.typ {
		case types.Int64Type:
			attrs[e.name] = schema.Int64Attribute{Optional: true, MarkdownDescription: e.desc}
		default:
			attrs[e.name] = schema.StringAttribute{Optional: true, MarkdownDescription: e.desc}
		}
	}
	return schema.ListNestedAttribute{Required: true, MarkdownDescription: desc,
		Validators: []validator.List{listvalidator.SizeAtLeast(1)}, NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}
