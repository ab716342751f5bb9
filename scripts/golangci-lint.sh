#!/usr/bin/env bash
# Prints the path of golangci-lint at the pinned version, installed once from
# the Go module proxy into ${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-gse/.
set -euo pipefail

version=v2.15.0
dest="${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-gse/golangci-lint-$version"
bin="$dest/golangci-lint"
if [ ! -x "$bin" ]; then
  echo "installing golangci-lint $version from the Go module proxy into $dest" >&2
  # pkg@version ignores this module's go.mod; GOFLAGS is cleared so a -mod flag set for it plays no part.
  GOFLAGS= GOBIN="$dest" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version" >&2
fi
echo "$bin"
