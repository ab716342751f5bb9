// Package gse is a typed client for the process-management APIs of BlueKing:
// GSE 1.0 and JOB through ESB, GSE 2.0 through the API gateway, JOB's v3 jobs
// through ESB or the bk-job gateway, and CMDB's hosts and processes through
// ESB or the bk-cmdb gateway. It knows HTTP, authentication, envelopes,
// retries, rate limits, batching and polling, and nothing of Terraform.
package gse
