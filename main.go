// Command terraform-provider-gse is the Terraform provider for the process
// management APIs of Tencent BlueKing GSE.
package main

import "github.com/bk-gse/terraform-provider-gse/internal/launch"

// version is set by the release build (goreleaser ldflags).
var version = "dev"

func main() { launch.Serve(version, nil) }
