package deploy

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/racetest"
)

// raceCrashPort is TestClusterRaceCrash's port base.
const raceCrashPort = 29000

// TestClusterRaceCrash is race's crash test against the local cluster (the
// embedded one is internal/race's TestCrashMidRush): a burst of 1,200
// runners for 1,000 places goes through nginx to two instances, payments
// with a 20 ms round trip, and one instance is killed (-9) while runners
// pay, then started again. No runner notices: no request fails. When the
// dust settles (paid holds written, holds left paying settled with the
// gateway by their key) every successful charge has exactly one
// registration and every registration its charge, bibs are unique, and
// the event is not over its cap. Needs what TestLocalCluster needs.
//
// The runners arrive within 20 s: within 4 s, on a slow 2-core machine
// shared with every service of the cluster, a paying runner's requests
// fell 10 s behind and timed out for that, not for the kill.
func TestClusterRaceCrash(t *testing.T) {
	c := upCluster(t, raceCrashPort, 2, "TUTTI_PAYMENT_URL=test:?latency=20ms")
	ctx := context.Background()
	// tutti's own database handle: it reads the queries' ? placeholders.
	primary, err := db.Open(ctx, "postgres://postgres@127.0.0.1:"+strconv.Itoa(c.port+432)+"/tutti?sslmode=disable", "")
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()

	// The seed goes into the cluster's database, as cluster-compare does.
	data := filepath.Join(c.state, "seed-data")
	seed := exec.Command(filepath.Join(c.state, "tutti"), "seed", "race", "--data-dir", data,
		"--runners", "1200", "--places", "1000", "--results", "0")
	seed.Env = append(os.Environ(), clusterEnv(t, c)...)
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	seedFile := filepath.Join(data, "seed", "race.json")
	ids, err := race.LoadSeedIDs(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(c.https)
	done := racetest.Rush(t, u, seedFile, 1200, 20*time.Second, clusterTLS(t, c))
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.Scan(primary.QueryRow(ctx, q, args...), &n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}

	// Kill an instance once runners are paying: some charges in flight,
	// some paid holds not yet written, some registrations written.
	deadline := time.Now().Add(60 * time.Second)
	for count(`SELECT count(*) FROM race_registrations`) < 100 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	c.must("kill", "tutti1")
	t.Logf("tutti1 killed with %d registrations, %d charges, holds by status: paying %d, paid %d, open %d",
		count(`SELECT count(*) FROM race_registrations`), count(`SELECT count(*) FROM pay_test_payments`),
		count(`SELECT count(*) FROM race_holds WHERE status = 'paying'`), count(`SELECT count(*) FROM race_holds WHERE status = 'paid'`),
		count(`SELECT count(*) FROM race_holds WHERE status = 'open'`))
	// The outage, which is what is tested: nginx meets a dead tutti1 for a
	// while. No state to wait for (the container is gone), and nothing is
	// asserted until the runners settle.
	time.Sleep(300 * time.Millisecond)
	c.must("start", "tutti1")

	res := <-done
	if res != nil {
		t.Logf("burst: %d runners, %d ended without a registration %v; %d request errors %v", res.Totals.Sessions,
			res.Totals.SessionsFailed, res.Failed, res.Totals.Errors, res.ErrorExamples)
		for _, st := range res.Requests {
			t.Logf("  %-16s %5d requests, p99 %6.0f ms, max %6.0f ms", st.Name, st.Count, st.P99, st.Max)
		}
		// Unnoticed by the runners: nginx sends what tutti1 held to tutti2,
		// which finishes each payment and answers each saved form with the
		// page its hold is at.
		if res.Totals.Errors != 0 || res.Totals.SessionsFailed != res.Failed["register sold_out"] {
			t.Errorf("%d requests failed %v, sessions ended %v; want none failed, only sold out", res.Totals.Errors,
				res.ErrorExamples, res.Failed)
		}
	}
	racetest.Settled(t, count, ids.Event, 200, 2*time.Minute)
	c.down()
}

// clusterEnv is the cluster's settings (local-cluster env) as KEY=VALUE,
// for a tutti command run against it.
func clusterEnv(t *testing.T, c *cluster) []string {
	t.Helper()
	var env []string
	for _, line := range strings.Split(c.must("env"), "\n") {
		kv, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2 {
			v = strings.ReplaceAll(v[1:len(v)-1], `'\''`, `'`)
		}
		env = append(env, k+"="+v)
	}
	if len(env) == 0 {
		t.Fatal("local-cluster env printed no settings")
	}
	return env
}
