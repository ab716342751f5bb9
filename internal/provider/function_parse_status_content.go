package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
)

var _ function.Function = parseStatusContentFunction{}

// parseStatusContentFunction reads a status answer's content with the
// client's parser, the one the resources use: users get the same judgement
// of pid, hosting and version as results[*].pid/managed/version.
type parseStatusContentFunction struct{}

func newParseStatusContentFunction() function.Function { return parseStatusContentFunction{} }

var statusInstanceType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"pid": types.Int64Type, "hosted": types.BoolType, "version": types.StringType,
}}

var parsedStatusAttrTypes = map[string]attr.Type{
	"instances": types.ListType{ElemType: statusInstanceType},
	"running":   types.BoolType,
	"pid":       types.Int64Type,
	"hosted":    types.BoolType,
	"version":   types.StringType,
}

func (parseStatusContentFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "parse_status_content"
}

func (parseStatusContentFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Reads the content of a status (op 2) answer",
		MarkdownDescription: "Parses the `content` of a status answer (`op = \"status\"`, op_type 2) into its instances and what they add up to. " +
			"The content may be the JSON document itself or that document encoded once more as a JSON string, as GSE sends it. " +
			"Only `pid`, `isAuto` and `version` are read: the agent's other fields change type between versions. " +
			"A pid, flag or version the agent spells as a string or a number is accepted; one it leaves out or spells otherwise counts as absent " +
			"(`pid` -1, `hosted` null, `version` empty).\n\n" +
			"Returns an object:\n\n" +
			"- `instances`: one object per instance, `{ pid, hosted, version }`; `pid` is -1 when the instance is not running, `hosted` null when the answer does not say.\n" +
			"- `running`: whether any instance runs.\n" +
			"- `pid`: the pid of the first running instance, else -1.\n" +
			"- `hosted`: whether the agent hosts the process (true when any instance says so); null when no instance says.\n" +
			"- `version`: the version of the first running instance reporting one, else of any instance; empty when none does.\n\n" +
			"An empty content gives no instances. Content that is not JSON, or not shaped as documented, is an error saying where, " +
			"such as `process holds an object where a list belongs`. The example below shows an input and the object returned for it.",
		Parameters: []function.Parameter{
			function.StringParameter{Name: "content", MarkdownDescription: "The `content` of a result, such as `gse_process_operation.x.results[0].content`."},
		},
		Return: function.ObjectReturn{AttributeTypes: parsedStatusAttrTypes},
	}
}

func (parseStatusContentFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var content string
	if resp.Error = req.Arguments.Get(ctx, &content); resp.Error != nil {
		return
	}
	st, err := gse.ParseContent(content)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	instances := make([]attr.Value, len(st.Instances))
	for i, in := range st.Instances {
		instances[i] = types.ObjectValueMust(statusInstanceType.AttrTypes, map[string]attr.Value{
			"pid": types.Int64Value(in.PID), "hosted": types.BoolPointerValue(in.IsAuto), "version": types.StringValue(in.Version),
		})
	}
	resp.Error = resp.Result.Set(ctx, types.ObjectValueMust(parsedStatusAttrTypes, map[string]attr.Value{
		"instances": types.ListValueMust(statusInstanceType, instances),
		"running":   types.BoolValue(st.Running()),
		"pid":       types.Int64Value(st.PID()),
		"hosted":    types.BoolPointerValue(st.Hosted()),
		"version":   types.StringValue(st.Version()),
	}))
}
