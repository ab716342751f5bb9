package gse_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/gse"
	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

// Requests and time of a resource's create and destroy when every GSE task
// lasts 2 s (issue 6's table), with the client's default poll schedule and
// batching. Each runs the provider's call sequence: "two tasks" is the
// provider as it stands (create: register, op 3, op 0, status read; destroy:
// refresh, status read, op 1, op 4, unregister); "one task" is issue 6 item 2
// (create: register, op 0; destroy: refresh, op 1, unregister).
//
//	go test ./internal/gse/ -run '^$' -bench TaskLatency -benchtime 1x
func BenchmarkTaskLatency2s(b *testing.B) {
	for _, flow := range []struct {
		name            string
		create, destroy func(context.Context, *gse.Client, gse.Meta, []gse.Host) error
	}{
		{"two tasks", createTwoTasks, destroyTwoTasks},
		{"one task", createOneTask, destroyOneTask},
	} {
		for _, n := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/%d resources", flow.name, n), func(b *testing.B) {
				for b.Loop() {
					sim := simulator.New(simulator.Options{TaskLatency: 2 * time.Second})
					srv := httptest.NewServer(sim)
					c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: "a", AppSecret: "s", Username: "u"})
					if err != nil {
						b.Fatal(err)
					}
					start := time.Now()
					parallel(b, n, func(i int) error { return flow.create(b.Context(), c, benchMeta(i), []gse.Host{{IP: "10.0.0.1"}}) })
					created, createCalls := time.Since(start), total(sim.AllCalls())
					start = time.Now()
					parallel(b, n, func(i int) error { return flow.destroy(b.Context(), c, benchMeta(i), []gse.Host{{IP: "10.0.0.1"}}) })
					b.ReportMetric(float64(createCalls), "create-requests")
					b.ReportMetric(float64(total(sim.AllCalls())-createCalls), "destroy-requests")
					b.ReportMetric(created.Seconds(), "create-s")
					b.ReportMetric(time.Since(start).Seconds(), "destroy-s")
					srv.Close()
				}
			})
		}
	}
}

func benchMeta(i int) gse.Meta { return gse.Meta{Namespace: "gse", Name: fmt.Sprintf("proc-%d", i)} }

func total(calls map[string]int) int {
	n := 0
	for _, c := range calls {
		n += c
	}
	return n
}

// parallel runs f for 0..n-1, ten at a time as Terraform does.
func parallel(b *testing.B, n int, f func(int) error) {
	sem := make(chan struct{}, 10)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
}

func createTwoTasks(ctx context.Context, c *gse.Client, m gse.Meta, hosts []gse.Host) error {
	if _, err := c.Proc.RegisterProcInfo(ctx, m, hosts, spec); err != nil {
		return err
	}
	for _, op := range []gse.OpType{gse.OpHost, gse.OpStart} {
		if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: hosts, Op: op, Spec: spec}); err != nil {
			return err
		}
	}
	_, err := c.Proc.GetProcStatusV2(ctx, m, hosts)
	return err
}

func destroyTwoTasks(ctx context.Context, c *gse.Client, m gse.Meta, hosts []gse.Host) error {
	for range 2 {
		if _, err := c.Proc.GetProcStatusV2(ctx, m, hosts); err != nil {
			return err
		}
	}
	for _, op := range []gse.OpType{gse.OpStop, gse.OpUnhost} {
		if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: hosts, Op: op, Spec: spec}); err != nil {
			return err
		}
	}
	_, err := c.Proc.UnregisterProcInfo(ctx, m, hosts)
	return err
}

func createOneTask(ctx context.Context, c *gse.Client, m gse.Meta, hosts []gse.Host) error {
	if _, err := c.Proc.RegisterProcInfo(ctx, m, hosts, spec); err != nil {
		return err
	}
	_, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: hosts, Op: gse.OpStart, Spec: spec})
	return err
}

func destroyOneTask(ctx context.Context, c *gse.Client, m gse.Meta, hosts []gse.Host) error {
	if _, err := c.Proc.GetProcStatusV2(ctx, m, hosts); err != nil {
		return err
	}
	if _, err := c.Proc.Operate(ctx, gse.OperateRequest{Meta: m, Hosts: hosts, Op: gse.OpStop, Spec: spec}); err != nil {
		return err
	}
	_, err := c.Proc.UnregisterProcInfo(ctx, m, hosts)
	return err
}

// How many tasks 100 resources, created ten at a time, make for each batch
// window when GSE answers at once: the arrival spread the window must cover.
//
//	go test ./internal/gse/ -run '^$' -bench BatchWindow -benchtime 3x
func BenchmarkBatchWindow(b *testing.B) {
	for _, w := range []time.Duration{-1, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond} {
		b.Run(fmt.Sprint(w), func(b *testing.B) {
			for b.Loop() {
				sim := simulator.New(simulator.Options{InstantTasks: true})
				srv := httptest.NewServer(sim)
				c, err := gse.New(gse.Config{Endpoint: srv.URL, AppCode: "a", AppSecret: "s", Username: "u", BatchWindow: w})
				if err != nil {
					b.Fatal(err)
				}
				parallel(b, 100, func(i int) error { return createOneTask(b.Context(), c, benchMeta(i), []gse.Host{{IP: "10.0.0.1"}}) })
				b.ReportMetric(float64(len(sim.Tasks())), "tasks")
				b.ReportMetric(float64(total(sim.AllCalls())), "requests")
				srv.Close()
			}
		})
	}
}
