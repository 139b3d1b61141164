// Package lifecycle runs the modules of one process: they start in
// dependency order, each reports whether it is ready, and when the process
// ends they stop in reverse order, so a module never loses what it depends
// on while it is still draining.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"chartd.dev/libs/apierr"
)

// Module is one part of a running process. Every field is optional: a
// backend may only have Ready and Stop, a server only Run.
type Module struct {
	Name string
	// Run runs the module until ctx ends. Returning early (with or without
	// an error) stops the whole process.
	Run func(ctx context.Context) error
	// Ready reports whether the module can serve (readiness probes).
	Ready func(ctx context.Context) error
	// Live reports whether the module can still recover by itself
	// (liveness probes): an error means only a restart helps, so the
	// process is restarted. Most modules have none.
	Live func(ctx context.Context) error
	// Stop releases what the module holds, after its Run has returned and
	// after every module added later has stopped.
	Stop func(ctx context.Context) error
}

// Group is a process's modules in dependency order.
type Group struct {
	mu   sync.Mutex
	mods []Module
}

// Add appends m; modules are added dependencies first.
func (g *Group) Add(m Module) {
	g.mu.Lock()
	g.mods = append(g.mods, m)
	g.mu.Unlock()
}

func (g *Group) modules() []Module {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.mods)
}

// NotReadyError is Group.Ready's answer when modules are not ready. The
// module names may be shown to anyone who asks (a probe needs no key);
// the causes carry addresses, user names and driver messages, so they are
// for the log only: Error() has them, Modules does not.
type NotReadyError struct {
	// Modules names each module not ready, in the group's order.
	Modules []string
	// Err joins every module's cause, each prefixed with its name.
	Err error
}

func (e *NotReadyError) Error() string { return e.Err.Error() }

func (e *NotReadyError) Unwrap() error { return e.Err }

// Ready asks every module at once (a probe waits for the slowest check,
// not their sum) and names each that is not ready, in a *NotReadyError.
func (g *Group) Ready(ctx context.Context) error {
	mods := g.modules()
	results := make([]error, len(mods))
	var wg sync.WaitGroup
	for i, m := range mods {
		if m.Ready == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = m.Ready(ctx)
		}()
	}
	wg.Wait()
	var errs []error
	var names []string
	for i, err := range results {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", mods[i].Name, err))
			name := mods[i].Name
			if apierr.IsStorageFull(err) {
				// Says nothing private, and tells the operator what to do.
				name += " (storage full: writes refused until space is freed; reads and deletes served)"
			}
			names = append(names, name)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &NotReadyError{Modules: names, Err: errors.Join(errs...)}
}

// Live asks every module with a Live check; the first failure names its
// module.
func (g *Group) Live(ctx context.Context) error {
	for _, m := range g.modules() {
		if m.Live == nil {
			continue
		}
		if err := m.Live(ctx); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return nil
}

// Run starts every module's Run and waits until ctx ends or one of them
// returns; then it stops the modules in reverse order, each after its Run
// has returned. It answers the first module failure and every stop error.
func (g *Group) Run(ctx context.Context) error {
	mods := g.modules()
	type running struct {
		cancel context.CancelFunc
		done   chan struct{}
		err    error
	}
	runs := make([]*running, len(mods))
	ended := make(chan string, len(mods))
	base := context.WithoutCancel(ctx)
	for i, m := range mods {
		if m.Run == nil {
			continue
		}
		mctx, cancel := context.WithCancel(base)
		r := &running{cancel: cancel, done: make(chan struct{})}
		runs[i] = r
		go func() {
			defer close(r.done)
			r.err = m.Run(mctx)
			ended <- m.Name
		}()
	}
	var errs []error
	select {
	case <-ctx.Done():
	case name := <-ended:
		for i, m := range mods {
			if m.Name == name && runs[i] != nil {
				<-runs[i].done
				err := runs[i].err
				if err == nil {
					err = errors.New("stopped by itself")
				}
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	}
	for i := len(mods) - 1; i >= 0; i-- {
		if r := runs[i]; r != nil {
			r.cancel()
			<-r.done
			if r.err != nil && !errors.Is(r.err, context.Canceled) && !slices.ContainsFunc(errs, func(e error) bool { return errors.Is(e, r.err) }) {
				errs = append(errs, fmt.Errorf("%s: %w", mods[i].Name, r.err))
			}
		}
		if mods[i].Stop != nil {
			if err := mods[i].Stop(base); err != nil {
				errs = append(errs, fmt.Errorf("stop %s: %w", mods[i].Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Stop stops every module without running them, in reverse order: for a
// process whose start failed half way.
func (g *Group) Stop(ctx context.Context) error {
	mods := g.modules()
	var errs []error
	for _, m := range slices.Backward(mods) {
		if m.Stop != nil {
			if err := m.Stop(ctx); err != nil {
				errs = append(errs, fmt.Errorf("stop %s: %w", m.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}
