// Package cmdbfilter is bk-cmdb's property filter (its querybuilder) as the
// provider takes it: the filter argument of data sources and resources over
// the fields of a host, process, set or module, its model and the request
// form, the plan-time checks of every rule CMDB would refuse, and the
// lookup that refuses a field CMDB's objects do not have.
package cmdbfilter
