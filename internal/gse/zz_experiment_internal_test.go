package gse

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func TestZZWorkspaces(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	sim := simulator.New(simulator.Options{AppCode: "a", AppSecret: "s", TaskLatency: 2 * time.Second})
	sim.SetQuota(10, 0)
	srv := httptest.NewServer(sim)
	defer srv.Close()
	const N, R, P = 6, 25, 10
	var clients []*Client
	for i := 0; i < N; i++ {
		c, err := New(Config{Endpoint: srv.URL, AppCode: "a", AppSecret: "s", Username: "admin", MaxRetries: 5})
		if err != nil {
			t.Fatal(err)
		}
		c.limiter = NewLimiter(0)
		c.http.HTTPClient.Transport = limitedTransport{c.http.HTTPClient.Transport.(limitedTransport).next, c.limiter}
		clients = append(clients, c)
	}
	var done atomic.Int32
	stop := make(chan struct{})
	go func() {
		last := 0
		lastRef := 0
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			calls := sim.AllCalls()
			tot := 0
			for k, v := range calls {
				if k != simulator.RateLimitedKey {
					tot += v
				}
			}
			ref := calls[simulator.RateLimitedKey]
			line := fmt.Sprintf("sent %3d refused %3d rates:", tot-last, ref-lastRef)
			for _, c := range clients {
				line += fmt.Sprintf(" %5.2f", c.limiter.Rate())
			}
			fmt.Println(line, "done", done.Load())
			last, lastRef = tot, ref
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for w, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem := make(chan struct{}, P)
			var inner sync.WaitGroup
			for r := 0; r < R; r++ {
				sem <- struct{}{}
				inner.Add(1)
				go func() {
					defer inner.Done()
					defer func() { <-sem }()
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
					defer cancel()
					meta := Meta{Namespace: fmt.Sprintf("ws%d", w), Name: fmt.Sprintf("p%d", r)}
					hosts := []Host{{IP: fmt.Sprintf("10.0.%d.%d", w, r+1)}}
					spec := &Spec{Identity: Identity{ProcName: "p", SetupPath: "/d", PidPath: "/d/p.pid", User: "root"}, Control: Control{StartCmd: "./s"}, MonitorPolicy: &MonitorPolicy{AutoType: 1}}
					ctx, withdraw := c.Proc.ExpectOperate(ctx)
					defer withdraw()
					if _, err := c.Proc.RegisterProcInfo(ctx, meta, hosts, spec); err != nil {
						t.Error(err)
						return
					}
					if _, err := c.Proc.Operate(ctx, OperateRequest{Meta: meta, Hosts: hosts, Op: OpHost, Spec: spec}); err != nil {
						t.Error(err)
					}
				}()
			}
			inner.Wait()
			done.Add(1)
		}()
	}
	wg.Wait()
	close(stop)
	calls := sim.AllCalls()
	tot := 0
	for k, v := range calls {
		if k != simulator.RateLimitedKey {
			tot += v
		}
	}
	ref := calls[simulator.RateLimitedKey]
	wall := time.Since(start)
	fmt.Printf("total %d refused %d (%.0f%%) wall %v eff %.2f\n", tot, ref, 100*float64(ref)/float64(tot), wall, float64(tot-ref)/10/wall.Seconds())
}
