// Package plumbing holds what every resource, data source and action of the
// provider shares and none owns: diagnostics with advice on the client's
// errors, the configured client and deadlines, timeouts attributes,
// validators, list helpers and schema building.
package plumbing
