#!/usr/bin/env bash
# make generate: format examples/ and render docs/ with tfplugindocs, using the
# CLI of scripts/terraform-cli.sh (or $TF). tfplugindocs only finds a binary
# named terraform on PATH (else downloads one), so the provider schema is read
# here with the chosen CLI and handed over with --providers-schema.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The schema of list resources, actions and resource identities is only in the
# `providers schema -json` of Terraform 1.14+: by default use 1.15.0, built once.
tf=${TF:-$(bash scripts/terraform-cli.sh terraform 1.15.0)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bin/terraform-provider-gse" .
cat >"$work/cli.tfrc" <<TFRC
provider_installation {
  dev_overrides {
    "registry.terraform.io/bk-gse/gse" = "$work/bin"
    "registry.opentofu.org/bk-gse/gse" = "$work/bin"
  }
  direct {}
}
TFRC
mkdir "$work/config"
cat >"$work/config/main.tf" <<'HCL'
terraform {
  required_providers {
    gse = { source = "bk-gse/gse" }
  }
}
HCL
# dev_overrides need no init; the warning about them goes to stderr.
(cd "$work/config" && TF_CLI_CONFIG_FILE="$work/cli.tfrc" "$tf" providers schema -json) >"$work/schema.json" 2>"$work/schema.err" ||
  { cat "$work/schema.err" >&2; exit 1; }
# tfplugindocs looks the provider up by its short name.
sed -i -E 's#"registry\.(terraform\.io|opentofu\.org)/bk-gse/gse":#"gse":#' "$work/schema.json"

"$tf" fmt -recursive examples
go tool tfplugindocs generate --provider-name gse --rendered-provider-name "BlueKing GSE" \
  --providers-schema "$work/schema.json"
