// Package gsekit holds GSEKit's rules for a CMDB process: instance naming,
// spec defaults, rendering of its templates, grouping by spec, priority,
// and what it refuses (the command each operation needs, an instance held
// twice), as plain Go values (no Terraform types: the families turn them
// into their attributes).
package gsekit
