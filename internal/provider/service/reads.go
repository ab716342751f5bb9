package service

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

// maxReads is how many reads (of files, of processes' status) run at once.
const maxReads = 4

// readAll runs read(i) for each i below n, maxReads at once, and returns
// what each found; when one fails, the others stop and it returns the index
// of the one that failed first and its error.
func readAll[T any](ctx context.Context, n int, read func(ctx context.Context, i int) (T, error)) ([]T, int, error) {
	out := make([]T, n)
	failed, first := -1, error(nil)
	var once sync.Once
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxReads)
	for i := range n {
		g.Go(func() error {
			v, err := read(gctx, i)
			if err != nil {
				once.Do(func() { failed, first = i, err })
				return err
			}
			out[i] = v
			return nil
		})
	}
	_ = g.Wait() // first is the error Wait would return, with its index
	return out, failed, first
}
