// Package service is gse_service: a whole service (the GSE processes of one
// or more groups, as gse_cmdb_processes gives them) released as one thing,
// tier by tier in CMDB priority order as GSEKit does, each tier in batches
// of hosts behind a health gate, with the schedule known at plan and every
// instance's outcome in the state.
package service
