package gse

// The one conversion between the two wire forms of a host by address: Host
// (the GSE APIs, rollouts) and JobIP (the JOB APIs). Both keep their Key.

// Host is the GSE host ip names.
func (ip JobIP) Host() Host { return Host{IP: ip.IP, BkCloudID: ip.BkCloudID} }

// JobIP is h as JOB addresses it, by ip and bk_cloud_id (JOB has no agent-id form).
func (h Host) JobIP() JobIP { return JobIP{IP: h.IP, BkCloudID: h.BkCloudID} }
