// Command scrape-go replays openstack-exporter's load-balancer collector with gophercloud, the
// client the exporter is built on (exporters/loadbalancer.go of prometheus openstack-exporter):
// every LB page by page, one stats GET per LB one after the other, every amphora, every pool,
// on one kept-alive connection. bench/scrape.py is the same replay in Python; this one costs
// what the exporter's own Go client costs per call.
//
// Build and run (bench/scrape-go.sh does both; Debian's golang-go and gophercloud 0.12):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o /var/tmp/scrape-go bench/scrape-go/main.go
//	source ci/stack/env.sh admin
//	/var/tmp/scrape-go -endpoint http://127.0.0.1:9878 [-json out.json]
//
// Credentials come from the OS_* variables. The load-balancer endpoint is given, not read from
// the catalog, so Keel and the reference can be scraped on their own ports; paths are
// /v2/lbaas/... as gophercloud 1.x (the exporter's) builds them.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud"
	"github.com/gophercloud/gophercloud/openstack"
	"github.com/gophercloud/gophercloud/openstack/loadbalancer/v2/amphorae"
	"github.com/gophercloud/gophercloud/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/openstack/loadbalancer/v2/pools"
	"github.com/gophercloud/gophercloud/pagination"
)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pages walks a pager as AllPages does (the same requests), counting pages and items.
func pages(p pagination.Pager, count func(pagination.Page) (int, error)) (int, int, time.Duration, error) {
	n, items := 0, 0
	t0 := time.Now()
	err := p.EachPage(func(pg pagination.Page) (bool, error) {
		k, err := count(pg)
		n++
		items += k
		return true, err
	})
	return n, items, time.Since(t0), err
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "scrape-go: %s: %v\n", what, err)
	os.Exit(1)
}

func main() {
	endpoint := flag.String("endpoint", "", "the load-balancer API, e.g. http://127.0.0.1:9878")
	out := flag.String("json", "", "write the figures here as JSON too")
	statsLimit := flag.Int("stats-limit", 0, "time only the first N stats calls and extrapolate (0: all)")
	flag.Parse()
	if *endpoint == "" {
		fail("arguments", fmt.Errorf("-endpoint is required"))
	}
	// a project scope by name and domain, as an openrc gives it (gophercloud 0.12's
	// AuthOptionsFromEnv would want OS_PROJECT_ID as well)
	env := func(k, dflt string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return dflt
	}
	ao := gophercloud.AuthOptions{
		IdentityEndpoint: env("OS_AUTH_URL", ""),
		Username:         env("OS_USERNAME", ""),
		Password:         env("OS_PASSWORD", ""),
		DomainName:       env("OS_USER_DOMAIN_NAME", "Default"),
		Scope: &gophercloud.AuthScope{
			ProjectName: env("OS_PROJECT_NAME", ""),
			DomainName:  env("OS_PROJECT_DOMAIN_NAME", "Default"),
		},
	}
	if ao.IdentityEndpoint == "" || ao.Username == "" || ao.Password == "" {
		fail("OS_* credentials", fmt.Errorf("OS_AUTH_URL, OS_USERNAME and OS_PASSWORD are required"))
	}
	provider, err := openstack.AuthenticatedClient(ao)
	if err != nil {
		fail("Keystone", err)
	}
	base := strings.TrimSuffix(*endpoint, "/") + "/"
	c := &gophercloud.ServiceClient{ProviderClient: provider, Endpoint: base, ResourceBase: base + "v2/"}

	t0 := time.Now()
	var lbs []loadbalancers.LoadBalancer
	lbPages, _, lbTime, err := pages(loadbalancers.List(c, loadbalancers.ListOpts{}), func(pg pagination.Page) (int, error) {
		got, err := loadbalancers.ExtractLoadBalancers(pg)
		lbs = append(lbs, got...)
		return len(got), err
	})
	if err != nil {
		fail("LB list", err)
	}
	calls := len(lbs)
	if *statsLimit > 0 && *statsLimit < calls {
		calls = *statsLimit
	}
	lat := make([]float64, 0, calls)
	var statsTime time.Duration
	for _, lb := range lbs[:calls] {
		t := time.Now()
		if _, err := loadbalancers.GetStats(c, lb.ID).Extract(); err != nil {
			fail("stats of "+lb.ID, err)
		}
		d := time.Since(t)
		statsTime += d
		lat = append(lat, ms(d))
	}
	ampPages, amps, ampTime, err := pages(amphorae.List(c, amphorae.ListOpts{}), func(pg pagination.Page) (int, error) {
		got, err := amphorae.ExtractAmphorae(pg)
		return len(got), err
	})
	if err != nil {
		fail("amphora list", err)
	}
	poolPages, nPools, poolTime, err := pages(pools.List(c, pools.ListOpts{}), func(pg pagination.Page) (int, error) {
		got, err := pools.ExtractPools(pg)
		return len(got), err
	})
	if err != nil {
		fail("pool list", err)
	}
	total := time.Since(t0)
	sort.Float64s(lat)
	q := func(f float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(f*float64(len(lat)-1))]
	}
	statsAll := ms(statsTime)
	scrape := ms(total)
	if calls < len(lbs) && calls > 0 {
		// the calls not made, at the mean of those made
		rest := statsAll / float64(calls) * float64(len(lbs)-calls)
		statsAll += rest
		scrape += rest
	}
	fmt.Printf("LB list: %d LBs in %d pages, %.0f ms\n", len(lbs), lbPages, ms(lbTime))
	fmt.Printf("stats: %d calls, %.2f s (p50 %.2f ms, p95 %.2f ms, max %.1f ms)%s\n", calls, statsAll/1000,
		q(0.5), q(0.95), q(1), map[bool]string{true: ", extrapolated to every LB", false: ""}[calls < len(lbs)])
	fmt.Printf("amphorae: %d in %d pages, %.0f ms; pools: %d in %d pages, %.0f ms\n",
		amps, ampPages, ms(ampTime), nPools, poolPages, ms(poolTime))
	fmt.Printf("scrape: %.1f s\n", scrape/1000)
	if *out != "" {
		b, _ := json.MarshalIndent(map[string]interface{}{
			"client": "gophercloud 0.12 (Go)", "lbs": len(lbs), "lb_pages": lbPages, "lb_list_ms": ms(lbTime),
			"stats_calls": calls, "stats_ms": statsAll, "stats_p50_ms": q(0.5), "stats_p95_ms": q(0.95),
			"stats_max_ms": q(1), "amphorae": amps, "pools": nPools, "pool_pages": poolPages,
			"pool_list_ms": ms(poolTime), "scrape_ms": scrape,
		}, "", " ")
		if err := os.WriteFile(*out, b, 0o644); err != nil {
			fail("write "+*out, err)
		}
	}
}
