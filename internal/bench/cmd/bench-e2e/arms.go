package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// arm names one side of a row measured in the same runs as the others.
type arm int

const (
	armData     arm = iota // terraform_data holding the same values
	armGSE                 // this provider
	armBare                // bare terraform_data (count = N), the issues' baseline
	armNoAPI               // this provider without API work (terraform-provider-gse-floor)
	armBaseline            // the -baseline-src provider
)

var armNames = [...]string{"terraform_data", "gse", "bare terraform_data", "gse without API work", "baseline"}

// armSet holds the arms of a row, each a way to run one measure.
type armSet[F any] struct {
	order []arm
	funcs map[arm]F
}

func (s *armSet[F]) add(a arm, f F) {
	if s.funcs == nil {
		s.funcs = map[arm]F{}
	}
	s.order = append(s.order, a)
	s.funcs[a] = f
}

func (s *armSet[F]) has(a arm) bool { _, ok := s.funcs[a]; return ok }

// run measures, in each of runs runs, every arm with each step in turn (say
// apply, then destroy), the first arm rotating from run to run, and prints
// each run's wall times. It returns the measures of each step.
func (s *armSet[F]) run(runs int, steps ...func(F) measure) []armMeasures {
	out := make([]armMeasures, len(steps))
	for j := range out {
		out[j] = armMeasures{}
	}
	for i := 0; i < runs; i++ {
		var line []string
		for j, step := range steps {
			for k := range s.order {
				a := s.order[(i+k)%len(s.order)]
				out[j][a] = append(out[j][a], step(s.funcs[a]))
			}
			for _, a := range s.order {
				line = append(line, fmt.Sprintf("%s %v", armNames[a], out[j][a][i].wall.Round(time.Millisecond)))
			}
		}
		fmt.Fprintf(os.Stderr, "  run %d: %s\n", i+1, strings.Join(line, ", "))
	}
	return out
}

// armMeasures are each arm's measures, run by run.
type armMeasures map[arm][]measure

// pair is arm a against arm b, run by run.
func (m armMeasures) pair(a, b arm) pair { return pair{m[a], m[b]} }
