// Package acctest is what the acceptance tests of every resource family
// share: the in-process simulator behind an httptest server with provider
// factories wired to it in either mode (ESB or the GSE 2.0 gateway),
// configurations of the provider's resources, checks against the
// simulator's records, plan-error and CLI helpers, and benchmark servers.
package acctest
