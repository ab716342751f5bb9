package gse

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// bk-cmdb's host listing: ESB's cc/list_biz_hosts, or through the bk-cmdb
// gateway /api/v3/hosts/app/{bk_biz_id}/list_hosts. Both take the same body
// (bk_biz_id in the path for the gateway) and answer {count, info}.

const (
	familyCMDB      = "cc"
	apiListBizHosts = "list_biz_hosts"

	// CMDBPageSize is the documented page limit of list_biz_hosts.
	CMDBPageSize = 500
	// MaxCMDBSetIDs and MaxCMDBModuleIDs are list_biz_hosts' limits on bk_set_ids and bk_module_ids.
	MaxCMDBSetIDs    = 200
	MaxCMDBModuleIDs = 500
	// cmdbParallel bounds the pages read at once (bk-nodeman reads 20; the
	// gateway's default stage allows 100 requests/s per app).
	cmdbParallel = 8
	// cmdbReads is how many times a fleet that changed while paged is read.
	cmdbReads = 3
)

// CMDBService lists hosts of a business from bk-cmdb.
type CMDBService service

// HostQuery selects the hosts of a business: every host, or those of the
// sets and/or modules given, matching Filter when set.
type HostQuery struct {
	BizID     int64
	SetIDs    []int64
	ModuleIDs []int64
	Filter    *HostFilter
}

// HostFilter is list_biz_hosts' host_property_filter: rules joined by
// Condition (AND or OR). A rule is a field test, or a nested HostFilter.
type HostFilter struct {
	Condition string     `json:"condition"`
	Rules     []HostRule `json:"rules"`
}

// HostRule is one rule of a HostFilter: Field, Operator and Value, or (nested)
// Condition and Rules.
type HostRule struct {
	Field     string     `json:"field,omitempty"`
	Operator  string     `json:"operator,omitempty"`
	Value     any        `json:"value,omitempty"`
	Condition string     `json:"condition,omitempty"`
	Rules     []HostRule `json:"rules,omitempty"`
}

// CMDBHost is a host as list_biz_hosts describes it. InnerIP may hold several
// IPv4 addresses joined by commas; AgentID is empty where the agent predates
// GSE 2.0; a host may have only InnerIPv6.
type CMDBHost struct {
	BkHostID  int64  `json:"bk_host_id"`
	InnerIP   string `json:"bk_host_innerip"`
	InnerIPv6 string `json:"bk_host_innerip_v6"`
	BkCloudID int64  `json:"bk_cloud_id"`
	AgentID   string `json:"bk_agent_id"`
}

// cmdbFields are the host fields asked for: those of CMDBHost.
var cmdbFields = []string{"bk_host_id", "bk_host_innerip", "bk_host_innerip_v6", "bk_cloud_id", "bk_agent_id"}

// FirstIPv4 is the first of the host's IPv4 addresses (the one agents use), or "".
func (h CMDBHost) FirstIPv4() string {
	first, _, _ := strings.Cut(h.InnerIP, ",")
	return strings.TrimSpace(first)
}

// FirstIPv6 is the first of the host's IPv6 addresses in the short form
// agents and GSE use, or "". CMDB stores and returns them in full form
// (2001:0db8:0000:...; bk-cmdb common.ConvertHostIpv6Val); one it holds
// that does not parse is returned as it is.
func (h CMDBHost) FirstIPv6() string {
	first, _, _ := strings.Cut(h.InnerIPv6, ",")
	first = strings.TrimSpace(first)
	if a, err := netip.ParseAddr(first); err == nil {
		return a.String()
	}
	return first
}

type cmdbPage struct {
	Start int    `json:"start"`
	Limit int    `json:"limit"`
	Sort  string `json:"sort"`
}

type listBizHostsBody struct {
	BizID     int64       `json:"bk_biz_id"`
	Fields    []string    `json:"fields"`
	Page      cmdbPage    `json:"page"`
	SetIDs    []int64     `json:"bk_set_ids,omitempty"`
	ModuleIDs []int64     `json:"bk_module_ids,omitempty"`
	Filter    *HostFilter `json:"host_property_filter,omitempty"`
}

type listBizHostsReply struct {
	Count int        `json:"count"`
	Info  []CMDBHost `json:"info"`
}

// FleetChangedError says a CMDB listing kept changing while it was paged,
// so no consistent one could be read.
type FleetChangedError struct {
	API   string
	BizID int64
	Reads int
	Why   string
}

func (e *FleetChangedError) Error() string {
	return fmt.Sprintf("%s: the listing of business %d changed while it was paged, %d reads in a row (%s)", e.API, e.BizID, e.Reads, e.Why)
}

// errChanged is one read that saw the listing change.
type errChanged struct{ why string }

func (e errChanged) Error() string { return e.why }

// parseNamedGatewayURL checks the gateway root of system (nil for "").
func parseNamedGatewayURL(system, s string) (*url.URL, error) {
	if s == "" {
		return nil, nil
	}
	u, err := ParseGatewayURL(s)
	if err != nil {
		return nil, fmt.Errorf("%s %w", system, err)
	}
	return u, nil
}

// CMDBGateway reports whether host listings go through the bk-cmdb gateway.
func (c *Client) CMDBGateway() bool { return c.cmdb != nil }

// ListBizHosts reads every host q selects, ordered by bk_host_id, in pages
// of CMDBPageSize (pagedRead).
//
// CMDB API: list_biz_hosts (ESB), /api/v3/hosts/app/{bk_biz_id}/list_hosts (gateway).
func (s *CMDBService) ListBizHosts(ctx context.Context, q HostQuery) ([]CMDBHost, error) {
	c := s.client
	if c.cmdb == nil && c.base == nil {
		return nil, errors.New("list_biz_hosts: neither a bk-cmdb gateway URL nor an ESB endpoint is configured")
	}
	return pagedRead(ctx, c, apiListBizHosts, q.BizID, CMDBPageSize, func(ctx context.Context, start int) (int, []CMDBHost, error) {
		r, err := s.page(ctx, q, start)
		return r.Count, r.Info, err
	}, func(h CMDBHost) int64 { return h.BkHostID })
}

// pagedRead reads a CMDB listing of api sorted by key, in pages of size:
// the first gives the count, the rest are read concurrently (at most
// cmdbParallel at once). Each page after the first starts one item before
// the previous one ends, and that shared item must match: an item added or
// removed while paging shifts the pages and breaks the match (as does a
// count that moves), and then the whole listing is read again, up to
// cmdbReads times, before a FleetChangedError.
func pagedRead[T any](ctx context.Context, c *Client, api string, biz int64, size int,
	read func(ctx context.Context, start int) (int, []T, error), key func(T) int64,
) ([]T, error) {
	var why string
	for range cmdbReads {
		items, err := readOnce(ctx, size, read, key)
		var changed errChanged
		if !errors.As(err, &changed) {
			return items, err
		}
		why = changed.why
		c.log.Warn(ctx, "CMDB listing changed while paged; reading again", map[string]any{"api": api, "bk_biz_id": biz, "why": why})
	}
	return nil, &FleetChangedError{API: api, BizID: biz, Reads: cmdbReads, Why: why}
}

// readOnce pages through a listing once; errChanged when the pages do not fit together.
func readOnce[T any](ctx context.Context, size int, read func(ctx context.Context, start int) (int, []T, error), key func(T) int64) ([]T, error) {
	total, first, err := read(ctx, 0)
	if err != nil {
		return nil, err
	}
	if len(first) >= total {
		return first[:total], nil
	}
	// Page k (k >= 1) starts at k*stride: one item before page k-1 ends.
	stride := size - 1
	pages := make([][]T, (total-2)/stride+1)
	pages[0] = first
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmdbParallel)
	for k := 1; k < len(pages); k++ {
		g.Go(func() error {
			count, items, err := read(gctx, k*stride)
			if err != nil {
				return err
			}
			if count != total {
				return errChanged{fmt.Sprintf("the count went from %d to %d", total, count)}
			}
			pages[k] = items
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]T, 0, total)
	out = append(out, pages[0]...)
	for k := 1; k < len(pages); k++ {
		prev, cur := pages[k-1], pages[k]
		if len(prev) < size { // only the last page may be short
			return nil, errChanged{fmt.Sprintf("page %d held %d items, short of %d", k, len(prev), size)}
		}
		if len(cur) == 0 || key(cur[0]) != key(prev[len(prev)-1]) {
			return nil, errChanged{fmt.Sprintf("pages %d and %d do not meet at id %d", k, k+1, key(prev[len(prev)-1]))}
		}
		out = append(out, cur[1:]...)
	}
	if len(out) != total {
		return nil, errChanged{fmt.Sprintf("%d items read, the count is %d", len(out), total)}
	}
	return out, nil
}

// page reads one page of list_biz_hosts from start.
func (s *CMDBService) page(ctx context.Context, q HostQuery, start int) (listBizHostsReply, error) {
	c := s.client
	body := listBizHostsBody{
		BizID: q.BizID, Fields: cmdbFields, Page: cmdbPage{Start: start, Limit: CMDBPageSize, Sort: "bk_host_id"},
		SetIDs: q.SetIDs, ModuleIDs: q.ModuleIDs, Filter: q.Filter,
	}
	target, root := c.cmdbRoute(apiListBizHosts, "api/v3/hosts/app", strconv.FormatInt(q.BizID, 10), "list_hosts")
	var out listBizHostsReply
	_, err := c.post(ctx, apiListBizHosts, target, root, body, &out, true)
	return out, err
}
