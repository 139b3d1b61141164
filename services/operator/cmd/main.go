// Command operator runs the RenderFleet controller: it keeps each
// RenderFleet's Deployment, Service and PodDisruptionBudget, scales the
// fleet by the load its render pods report, and recreates pods whose
// Chromium memory keeps growing. It runs with leader election, so several
// replicas can stand by.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"chartd.dev/services/operator/api/v1alpha1"
	"chartd.dev/services/operator/internal/controller"
	"chartd.dev/services/operator/internal/fleetstats"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := run(ctrl.SetupSignalHandler(), os.Args[1:], os.Getenv, log); err != nil {
		log.Error("operator stopped", "err", err)
		os.Exit(1)
	}
}

// config is the operator's settings; each flag also reads
// CHARTD_OPERATOR_<FLAG> from the environment, as chartd's flags do.
type config struct {
	metricsAddr    string
	probeAddr      string
	leaderElect    bool
	leaderID       string
	namespace      string
	internalToken  string
	statsTimeout   time.Duration
	leaseNamespace string
}

func parse(args []string, getenv func(string) string) (config, error) {
	var c config
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.StringVar(&c.metricsAddr, "metrics-bind-address", "0", "address of the controller metrics endpoint; 0 turns it off")
	fs.StringVar(&c.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	fs.BoolVar(&c.leaderElect, "leader-elect", true, "elect one active replica through a Lease")
	fs.StringVar(&c.leaderID, "leader-election-id", "renderfleet.chartd.dev", "name of the leader election Lease")
	fs.StringVar(&c.namespace, "watch-namespace", "", "namespace whose RenderFleets are reconciled; empty: every namespace")
	fs.StringVar(&c.leaseNamespace, "leader-election-namespace", "", "namespace of the Lease; empty: the pod's own")
	fs.StringVar(&c.internalToken, "internal-token", "", "chartd's internal token, sent to the render pods' fleet-stats endpoint")
	fs.DurationVar(&c.statsTimeout, "stats-timeout", 2*time.Second, "time budget of one pod's fleet-stats request")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		env := "CHARTD_OPERATOR_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(env); v != "" && !set[f.Name] {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", env, err))
			}
		}
	})
	if len(c.internalToken) < 16 {
		errs = append(errs, errors.New("-internal-token: needs chartd's internal token (16+ characters) to read the render pods' fleet stats"))
	}
	return c, errors.Join(errs...)
}

// scheme is the kinds the operator reads and writes.
func scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("client-go scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("chartd.dev scheme: %w", err)
	}
	return s, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, log *slog.Logger) error {
	c, err := parse(args, getenv)
	if err != nil {
		return err
	}
	ctrl.SetLogger(logr.FromSlogHandler(log.Handler()))
	s, err := scheme()
	if err != nil {
		return err
	}
	opts := ctrl.Options{
		Scheme:                  s,
		Metrics:                 metricsserver.Options{BindAddress: c.metricsAddr},
		HealthProbeBindAddress:  c.probeAddr,
		LeaderElection:          c.leaderElect,
		LeaderElectionID:        c.leaderID,
		LeaderElectionNamespace: c.leaseNamespace,
		// The pods are stopped by SIGTERM: give up the lease at once, so a
		// standby takes over without waiting for it to expire.
		LeaderElectionReleaseOnCancel: true,
	}
	if c.namespace != "" {
		opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{c.namespace: {}}}
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	r := &controller.RenderFleetReconciler{
		Client: mgr.GetClient(),
		Scheme: mgr.GetScheme(),
		Stats:  fleetstats.Client{HTTP: &http.Client{Timeout: c.statsTimeout}, Token: c.internalToken},
		Log:    log,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("healthz check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("readyz check: %w", err)
	}
	log.Info("starting the render fleet operator", "namespace", c.namespace, "leader_elect", c.leaderElect)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	return nil
}
