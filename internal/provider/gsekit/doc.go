// Package gsekit holds GSEKit's rules for a CMDB process: instance naming,
// spec defaults, rendering of its templates, grouping by spec, and
// priority, as plain Go values (no Terraform types: the families turn them
// into their attributes).
package gsekit
