// Command gse-simulator serves the GSE process-management APIs in memory on
// loopback, for `make demo` and for trying the provider without a BlueKing
// installation. Out-of-band changes: POST /_sim/drift; state: GET /_sim/processes;
// requests per API: GET /_sim/calls; CMDB hosts: GET /_sim/cmdb/hosts.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/bk-gse/terraform-provider-gse/internal/simulator"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback)")
	appCode := flag.String("app-code", "", "required bk_app_code (empty: any)")
	appSecret := flag.String("app-secret", "", "required bk_app_secret")
	urlFile := flag.String("url-file", "", "write the server's URL to this file once listening")
	tenant := flag.String("tenant-id", "", "required X-Bk-Tenant-Id of gateway requests (empty: any)")
	accessToken := flag.String("access-token", "", "required access_token of gateway requests that send one (empty: any)")
	latency := flag.Duration("task-latency", time.Second, "how long each operation task takes; 0: tasks answer at their first poll")
	cmdbHosts := flag.Int("cmdb-hosts", 0, "hosts of the generated CMDB business 2 (list_biz_hosts; POST /_sim/cmdb/move moves one between modules)")
	templates := flag.Int("cmdb-process-templates", 2, "process templates of every module of the CMDB business (nginx, agent, then svc3, svc4, ...)")
	quota := flag.Float64("quota", 0, "requests per second each app may make (token bucket shared by every caller); 0: no limit")
	quotaBurst := flag.Int("quota-burst", 0, "the quota's burst (0: the quota rounded up)")
	without := flag.String("without", "", "comma-separated APIs this installation lacks, e.g. operate_proc_multi,sync_proc_status")
	job37 := flag.Bool("job-3.7", false, "a JOB 3.7 or later: the JOB process APIs answer 1306201 \"Status Code: 404\"")
	verified := flag.Bool("verified-users-only", false, "refuse bk_username without bk_token, as ESB does for apps off its skip_user_auth whitelist and the gateway for apps it does not exempt")
	statusRewrite := flag.Bool("gateway-status-200", false, "the gateway's refusals with HTTP 200 (bk-status-rewrite, bound to every stage of bk-esb)")
	flag.Parse()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(url+"\n"), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("gse-simulator listening on", url)
	sim := simulator.New(simulator.Options{AppCode: *appCode, AppSecret: *appSecret, TenantID: *tenant, AccessToken: *accessToken, TaskLatency: *latency, InstantTasks: *latency == 0, CMDBHosts: *cmdbHosts, CMDBProcessTemplates: *templates, VerifiedUsersOnly: *verified})
	sim.SetGatewayStatusRewrite(*statusRewrite)
	sim.SetQuota(*quota, *quotaBurst)
	if *without != "" {
		sim.RemoveAPIs(strings.Split(*without, ",")...)
	}
	sim.JOB().SetProcessAPIsRemoved(*job37)
	srv := &http.Server{Handler: sim} //nolint:gosec // loopback demo server
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
		<-stop
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
