#!/usr/bin/env bash
# Prints the path of a Terraform CLI: terraform on PATH, else OpenTofu built once
# from the Go module proxy into bin/ (about 5 minutes). Nothing is downloaded
# from anywhere else.
set -euo pipefail
if command -v terraform >/dev/null 2>&1; then
  command -v terraform
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
tofu="$root/bin/tofu"
if [ ! -x "$tofu" ]; then
  echo "terraform is not on PATH: building OpenTofu v1.10.7 from the Go module proxy (about 5 minutes)" >&2
  tmp=$(mktemp -d)
  trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
  dir=$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json github.com/opentofu/opentofu@v1.10.7 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { echo "could not download OpenTofu from the Go module proxy" >&2; exit 1; }
  cp -r "$dir" "$tmp/src"
  chmod -R u+w "$tmp/src"
  mkdir -p "$root/bin"
  (cd "$tmp/src" && go build -o "$tofu" ./cmd/tofu) >&2
fi
echo "$tofu"
