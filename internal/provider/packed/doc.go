// Package packed serves a terraform-plugin-framework provider whose
// resources hold some attributes packed: one string, to the framework, of the
// attribute's value exactly as Terraform encodes it on the wire
// (MessagePack). Terraform sees the attribute's real type; the provider
// decodes it once, where it reads it.
//
// Why: the framework walks every value it validates, plans or applies several
// times over (terraform-plugin-framework v1.19: to nullify collection blocks,
// to mark unknowns, once per attribute a plan modifier touches, to compare
// and copy states, to encode them), and each walk costs per element. A list
// of 10,000 host objects made those walks 95 % of a plan's CPU. Packed, such
// a value is one leaf to them.
//
// The surface:
//
//   - NewProtocol6 wraps the framework's server (providerserver) for
//     tf6server.Serve or ProtoV6ProviderFactories. It packs and unpacks the
//     attributes of every RPC that carries a resource's values
//     (tripwire_test.go fails on one it does not know), and finds what to
//     pack from the resources' schemas.
//   - Of[V] is the attribute type: the CustomType of a schema.StringAttribute
//     whose values are V (a Value: the string, what it decodes to, and the
//     type Terraform sees). A data source's computed attribute may be one
//     too: ReadDataSource unpacks it, and Encode writes its value from
//     framework values.
//   - ObjectCodec, Field, CodecOf, WriteUnknown, String and Decoder encode
//     and decode such values as Terraform does, so that an unchanged value
//     packs to the same bytes.
//   - SchemaAttribute and Check serve a packed value whose schema is written
//     as a framework attribute: Terraform sees that attribute, and its
//     validators run on the decoded value at the same paths.
//   - ConfigGenerator is a resource that amends the configuration generated
//     for an imported object.
//
// Its code knows nothing of the provider it serves; only the list below names
// the provider's side, so that one list holds every workaround.
//
// # WORKAROUNDS
//
// Every place where the provider works around terraform-plugin-framework
// v1.19 (or Terraform), what it works around, and what shows it pays. Drop
// one when the version it names is no longer supported and its benchmark or
// test no longer shows a difference.
//
//  1. The packed attribute (this package; gse_managed_process.hosts,
//     host_status and spec: hosts.List, status.HostStatus and spec.Value
//     in the packages of internal/provider). Framework v1.19 walks a
//     nested attribute's value per element, several times per RPC:
//     hashicorp/terraform-plugin-framework#775; and per attribute, so that
//     spec's 30 attributes were most of a refresh's allocations. Benchmark:
//     BenchmarkManagedProcessPlan and BenchmarkManagedProcessApply
//     (create/hosts=10000); for spec, BenchmarkManagedProcessRefresh. And
//     gse_cmdb_processes.instances and .groups (internal/provider/cmdb),
//     whose 20,000 elements (of instances; of groups' hosts) the framework's
//     state conversions and their garbage made most of a plan's provider
//     CPU: `make bench-e2e`, the processes row with with_instances = true,
//     and the service row.
//     And gse_service.processes and .instances (internal/provider/service,
//     packedMap, checked by Check.Tree), whose walks were most of a plan's
//     provider CPU at 500 hosts: `make bench-e2e`, the service row. And
//     gse_service.config_files, whose plan modification copied the whole map
//     for each element (fwserver mapElemObject), quadratic in the files: a
//     1,000-host apply allocated 11.7 GB, 6.3 GB packed; `make bench-e2e`,
//     the release row. Its content_wo, write-only, is nulled in the plan by
//     the provider (the framework's NullifyWriteOnlyAttributes sees a string).
//  2. Types built once (plumbing.WithTypesBuilt).
//     Framework v1.19 rebuilds a nested attribute's type from its attributes
//     on every GetType call, for every step of every attribute path of every
//     value. Benchmark: BenchmarkManagedProcessRefresh (allocations per op).
//  3. ip_list a plain list (hosts.JobIPListAttribute). Framework
//     v1.19 walks a list nested attribute once per element and copies the
//     list for each, so a plan grew with the square of the IPs:
//     hashicorp/terraform-plugin-framework#775. Benchmark:
//     BenchmarkJobManagedProcessPlan.
//  4. refreshedModel (internal/provider/managedprocess): Read
//     gets and sets only the attributes it may change. Framework v1.19
//     reflects over every field of a model (a regular expression compiled
//     per field) and rewrites the whole value per attribute set. Benchmark:
//     BenchmarkManagedProcessRefresh/read.
//  5. quietUnlessAsked (main.go): the SDK loggers are off unless the user
//     asked for logs. terraform-plugin-go v0.31 and framework v1.19 format a
//     trace line per attribute and element even when Terraform discards it.
//     No Go benchmark shows it (they call the server without tf6server's
//     loggers): `make bench-e2e`, plan of many hosts.
//  6. The state-upgrade passthrough (upgrade.go). Framework v1.19 answers
//     UpgradeResourceState for a state of the schema's own version by a walk
//     that looks the schema up from its root for every value, a sixth of a
//     refresh's CPU; and terraform-plugin-go v0.31 decodes the JSON again at
//     every level of nesting (tftypes jsonUnmarshal), which statejson.go
//     replaces by one pass. Benchmark: BenchmarkManagedProcessRefresh/upgrade;
//     test: FuzzStateJSON, TestUpgradePassthroughIsTheFrameworks.
//  7. Numbers as text on refresh and in data sources (numbers.go).
//     Terraform 1.10 to 1.14 (fixed in 1.15) compare refreshed states and
//     root outputs with reflect.DeepEqual, so a number from a provider
//     differed from the same number read from the state file: `plan
//     -refresh-only -detailed-exitcode` exited 2 with "No changes". A
//     correctness fix, no speed-up; its cost is in
//     BenchmarkManagedProcessRefresh/read. Tests:
//     TestAccManagedProcess_refreshOnlyExitCode,
//     TestAccDataSources_refreshOnlyExitCode.
//  8. GenerateResourceConfig announced (server.go,
//     withGenerateResourceConfig). Framework v1.19 serves the RPC but its
//     internal/toproto6 ServerCapabilities drops the capability, so
//     Terraform 1.14+ generated imported configuration itself and no
//     ConfigGenerator was asked. A correctness fix, no speed-up. Tests:
//     TestGenerateResourceConfigUnpacks, TestAccManagedProcess_generatedConfig.
//  9. Contexts without loggers (quiet.go, Quiet; main.go passes it when
//     quietUnlessAsked turned every logger off). Framework v1.19 copies a
//     logger's options and fields (terraform-plugin-log v0.11
//     tfsdklog.SubsystemSetField) per attribute it validates or plans, even
//     when no level lets a line through. Measured with `make bench-e2e`
//     (refresh of 1000: provider CPU 6.19 to 5.75 s); no Go benchmark shows
//     it (they call the server without tf6server's loggers). Test:
//     TestQuietDropsOnlyTheLoggers.
package packed
