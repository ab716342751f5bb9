// Package launch is what the provider process sets up before it serves: its
// garbage-collector budget, profiling and loggers. Serve does all of it and
// serves the provider; the release build (the module root's main) and the
// measuring build without API work (internal/bench/cmd/terraform-provider-gse-floor)
// both call it.
package launch
