package cmdb

// Internals the black-box tests use.

var CMDBAgent = cmdbAgent
