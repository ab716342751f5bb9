#!/usr/bin/env bash
# Prints the path of a Terraform CLI, building it once from the Go module proxy
# when needed. Nothing is downloaded from anywhere else.
#
#   scripts/terraform-cli.sh                    terraform on PATH, else OpenTofu v1.10.7
#   scripts/terraform-cli.sh terraform 1.15.0   Terraform v1.15.0, built once
#   scripts/terraform-cli.sh tofu 1.10.7        OpenTofu v1.10.7, built once
#
# Built CLIs live outside the repository, keyed by version:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-gse/<cli>-<version>/<cli>
# A first build takes 2-5 minutes on 2 cores; later calls print the cached path.
# Build output goes to stderr; stdout carries only the path.
set -euo pipefail

default_tofu=1.10.7
cache="${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-gse"

if [ $# -eq 0 ]; then
  if command -v terraform >/dev/null 2>&1; then
    command -v terraform
    exit 0
  fi
  echo "terraform is not on PATH: using OpenTofu v$default_tofu" >&2
  set -- tofu "$default_tofu"
fi
[ $# -eq 2 ] || { echo "usage: $0 [terraform|tofu VERSION]" >&2; exit 2; }
cli=$1 version=${2#v}
case "$cli" in
  terraform) module=github.com/hashicorp/terraform pkg=. ;;
  tofu) module=github.com/opentofu/opentofu pkg=./cmd/tofu ;;
  *) echo "unknown CLI $cli: want terraform or tofu" >&2; exit 2 ;;
esac
dest="$cache/$cli-$version"
bin="$dest/$cli"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

# Terraform's module zip lacks the remote-state backends that are nested modules:
# drop them from go.mod (require and replace lines) and from the backend registry.
# The local, http, inmem and cloud backends stay.
strip_nested_backends() {
  local nested='azure|consul|cos|gcs|kubernetes|oci|oss|pg|s3'
  sed -E -i "\#/internal/backend/remote-state/($nested)[ \t]#d" go.mod
  sed -E -i -e "/\bbackend(Azure|Consul|Cos|GCS|Kubernetes|OCI|OSS|Pg|S3)\b/d" internal/backend/init/init.go
  if grep -Eq "remote-state/($nested)\b" go.mod internal/backend/init/init.go; then
    echo "terraform-cli.sh: nested backends left in go.mod or init.go of $module@v$version" >&2
    exit 1
  fi
}

echo "building $cli v$version from the Go module proxy into $dest (2-5 minutes on 2 cores)" >&2
start=$SECONDS
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# -json prints Dir, the unpacked module in the module cache (read-only).
dir=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "$module@v$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "could not download $module@v$version from the Go module proxy" >&2; exit 1; }
cp -r "$dir" "$tmp/src"
chmod -R u+w "$tmp/src"
mkdir -p "$dest"
(
  cd "$tmp/src"
  [ "$cli" != terraform ] || strip_nested_backends
  # Both CLIs report $version-dev unless built as a release.
  GOFLAGS=-mod=mod go build -trimpath -ldflags "-X $module/version.dev=no" -o "$tmp/$cli" "$pkg"
) >&2
# Rename into place last, so an interrupted build never leaves a half-written CLI.
mv "$tmp/$cli" "$bin"
echo "built $("$bin" version | head -n 1) in $((SECONDS - start))s" >&2
echo "$bin"
