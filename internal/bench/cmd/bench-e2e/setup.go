package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	benchAppCode   = "bench"
	benchAppSecret = "bench-secret"
	providerSource = "registry.terraform.io/bk-gse/gse"
)

// bench holds what every row shares: binaries, simulators, the CLI config.
type bench struct {
	o           options
	work, bin   string
	cliConfig   string
	baseConfig  string     // the CLI config pointing at the -baseline-src provider, "" without one
	noAPIConfig string     // the CLI config pointing at the provider without API work (floorBuild), "" without one
	fast, slow  *simulator // task latency o.taskLatency and o.createLatency
	seq         int
}

type simulator struct {
	cmd *exec.Cmd
	url string
}

// build is one go build: of pkg in the checkout dir, with tags, into out.
type build struct{ dir, out, pkg, tags string }

// floorPkg is the main package of the provider without API work.
const floorPkg = "./internal/bench/cmd/terraform-provider-gse-floor"

// floorBuild is the build of the checkout src's provider without API work
// into out: its own main package (floorPkg), or, in a checkout older than
// that package, the root with -tags noapi (its noapi.go); false in a
// checkout older than both.
func floorBuild(src, out string) (build, bool) {
	if _, err := os.Stat(filepath.Join(src, floorPkg)); err == nil {
		return build{src, out, floorPkg, ""}, true
	}
	if _, err := os.Stat(filepath.Join(src, "noapi.go")); err == nil {
		return build{src, out, ".", "noapi"}, true
	}
	return build{}, false
}

func setup(o options, work string) (*bench, error) {
	b := &bench{o: o, work: work, bin: filepath.Join(work, "bin")}
	src := o.repo
	if o.providerSrc != "" {
		src = o.providerSrc
	}
	baseBin, noAPIBin := filepath.Join(work, "bin-base"), filepath.Join(work, "bin-noapi")
	builds := []build{
		{src, filepath.Join(b.bin, "terraform-provider-gse"), ".", ""},
		{o.repo, filepath.Join(b.bin, "gse-simulator"), "./internal/simulator/cmd/gse-simulator", ""},
	}
	floor, hasNoAPI := floorBuild(src, filepath.Join(noAPIBin, "terraform-provider-gse"))
	if hasNoAPI {
		builds = append(builds, floor)
	}
	if o.baselineSrc != "" {
		builds = append(builds, build{o.baselineSrc, filepath.Join(baseBin, "terraform-provider-gse"), ".", ""})
	}
	for _, bd := range builds {
		cmd := exec.Command("go", "build", "-tags", bd.tags, "-o", bd.out, bd.pkg)
		cmd.Dir, cmd.Stdout, cmd.Stderr = absPath(bd.dir), os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build %s in %s: %w", bd.pkg, bd.dir, err)
		}
	}
	var err error
	if b.cliConfig, err = writeCLIConfig(filepath.Join(work, "terraformrc"), b.bin); err != nil {
		return nil, err
	}
	if hasNoAPI {
		if b.noAPIConfig, err = writeCLIConfig(filepath.Join(work, "terraformrc-noapi"), noAPIBin); err != nil {
			return nil, err
		}
	}
	if o.baselineSrc != "" {
		if b.baseConfig, err = writeCLIConfig(filepath.Join(work, "terraformrc-base"), baseBin); err != nil {
			return nil, err
		}
	}
	if b.fast, err = b.startSimulator(o.taskLatency); err != nil {
		return nil, err
	}
	if b.slow, err = b.startSimulator(o.createLatency); err != nil {
		b.fast.stop()
		return nil, err
	}
	return b, nil
}

// writeCLIConfig writes a CLI config at path that points Terraform at the
// provider built in bin, and returns path.
func writeCLIConfig(path, bin string) (string, error) {
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", providerSource, bin)
	return path, os.WriteFile(path, []byte(rc), 0o600)
}

// baseline runs f with Terraform pointed at the -baseline-src provider.
func (b *bench) baseline(f func() measure) measure { return under(b, b.baseConfig, f) }

// noAPI runs f with Terraform pointed at the provider without API work: the
// same schemas, framework and plans, no API work (terraform-provider-gse-floor).
func (b *bench) noAPI(f func() measure) measure { return under(b, b.noAPIConfig, f) }

// under runs f with Terraform pointed at the provider of cliConfig.
func under[T any](b *bench, cliConfig string, f func() T) T {
	saved := b.cliConfig
	b.cliConfig = cliConfig
	defer func() { b.cliConfig = saved }()
	return f()
}

// startSimulator starts one with task latency latency and extra flags.
func (b *bench) startSimulator(latency time.Duration, flags ...string) (*simulator, error) {
	b.seq++
	urlFile := filepath.Join(b.work, fmt.Sprintf("sim-%d.url", b.seq))
	cmd := exec.Command(filepath.Join(b.bin, "gse-simulator"), append([]string{"-listen", "127.0.0.1:0", "-app-code", benchAppCode,
		"-app-secret", benchAppSecret, "-url-file", urlFile, "-task-latency", latency.String(),
		"-cmdb-hosts", strconv.Itoa(b.o.fleet[len(b.o.fleet)-1])}, flags...)...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for i := 0; i < 200; i++ {
		if raw, err := os.ReadFile(urlFile); err == nil && strings.HasSuffix(string(raw), "\n") {
			return &simulator{cmd: cmd, url: strings.TrimSpace(string(raw))}, nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("the simulator did not start")
}

func (s *simulator) stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

func (b *bench) close() {
	b.fast.stop()
	b.slow.stop()
}

// calls is the total of HTTP requests the simulator has answered.
func (s *simulator) calls() (int, error) {
	n, _, err := s.counts()
	return n, err
}

// counts is the total of HTTP requests the simulator has answered, and how
// many of them it refused for the app's quota.
func (s *simulator) counts() (total, limited int, err error) {
	per := map[string]int{}
	if err := s.get("/_sim/calls", &per); err != nil {
		return 0, 0, err
	}
	for api, c := range per {
		if !strings.HasPrefix(api, "_sim") {
			total += c
		}
	}
	return total, per["_sim/rate_limited"], nil
}

// get decodes the JSON that GET path answers into out.
// callsOf is how many requests of api the simulator has answered.
func (s *simulator) callsOf(api string) int {
	return s.perAPI()[api]
}

// perAPI are the requests the simulator has answered, by API.
func (s *simulator) perAPI() map[string]int {
	per := map[string]int{}
	_ = s.get("/_sim/calls", &per)
	return per
}

func (s *simulator) get(path string, out any) error {
	resp, err := http.Get(s.url + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// dir makes a working directory holding config as main.tf.
func (b *bench) dir(name, config string) string {
	b.seq++
	d := filepath.Join(b.work, fmt.Sprintf("%02d-%s", b.seq, name))
	if err := os.MkdirAll(d, 0o700); err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(d, "main.tf"), []byte(config), 0o600); err != nil {
		panic(err)
	}
	return d
}
