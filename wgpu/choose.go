package wgpu

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Choice is where work runs, as Choose decides it from Options and the
// adapters present: the CPU backend, one device, or several (which
// package sched opens as a Group: sched.Open).
type Choice struct {
	// CPU is the CPU backend (Options.Backend "cpu"): the nil Context,
	// which every algorithm takes as its Go code on all cores; Adapters
	// is empty.
	CPU bool
	// Adapters are the adapters to open, one device each: the one Open
	// would open, or, where Options.Devices is set, a Group's, all of one
	// backend.
	Adapters []AdapterInfo

	opts Options // the options chosen from, for each device
	// refs are where Adapters were found, one each: Open opens them
	// without choosing again.
	refs []adapterRef
}

// adapterRef is an adapter of an instance: infos[i] and adapters[i] of e.
type adapterRef struct {
	e *enumeration
	i int
}

// Choose decides, without opening anything, where work under opts runs;
// it is the one policy the library and its programs share (sched.OpenGroup,
// blake3.Auto, wgbench):
//
//   - Backend "cpu": the CPU backend, nothing to open;
//   - Devices set: the adapters Options.Devices names (see there), one
//     backend's;
//   - otherwise the one adapter Open opens: Backend and Adapter choose it,
//     by default the highest-ranked (discrete before integrated before
//     software, native backends before GL).
//
// Its errors are Open's and sched.OpenGroup's: settings they refuse, no adapter,
// an adapter that cannot run kernels.
func Choose(opts Options) (Choice, error) {
	if err := opts.check(); err != nil {
		return Choice{}, err
	}
	if opts.CPU() {
		// Devices is refused as with a GPU backend, where it is malformed;
		// with the adapters listed, pickDevices says more.
		if _, err := parseDevices(opts.Devices, acceptedDevices); err != nil {
			return Choice{}, err
		}
		return Choice{CPU: true, opts: opts}, nil
	}
	if !opts.WantsGroup() {
		e, pick, err := chooseAdapter(opts)
		if err != nil {
			return Choice{}, err
		}
		info := e.infos[pick]
		if info.Unusable != "" {
			return Choice{}, unusableError(info)
		}
		return Choice{Adapters: []AdapterInfo{info}, opts: opts, refs: []adapterRef{{e, pick}}}, nil
	}
	backend := opts.Backend
	if backend == "" {
		// One backend's adapters, so that a GPU is not chosen twice
		// through its Vulkan and GL twins: the backend of Open's default
		// choice, found as Open finds it (without GL's instance where a
		// primary backend has a discrete GPU).
		first, err := ChosenAdapter(Options{GLESMinor: opts.GLESMinor})
		if err != nil {
			return Choice{}, err
		}
		backend = first.Backend
	}
	e, err := adaptersOf(Options{Backend: backend, GLESMinor: opts.GLESMinor})
	if err != nil {
		return Choice{}, err
	}
	if e.err != nil {
		return Choice{}, e.err
	}
	if len(e.infos) == 0 {
		return Choice{}, noAdapterError(opts)
	}
	picks, err := pickDevices(opts.Devices, e.infos)
	if err != nil {
		return Choice{}, err
	}
	ch := Choice{opts: opts}
	for _, i := range picks {
		ch.Adapters = append(ch.Adapters, e.infos[i])
		ch.refs = append(ch.refs, adapterRef{e, i})
	}
	return ch, nil
}

// Fit returns the choice for one piece of work that one device would
// finish in work (kernels and transfers, which the devices split): c
// itself when splitting it over c's adapters saves more than extra, what
// opening the others costs the caller, else c's first adapter alone. A
// work of 0 (unknown, or not split by its caller) keeps the first adapter.
// The rule is the library's, since only a Choice can narrow itself to its
// first adapter before opening; the cost is the caller's (a program that
// opens devices for one command pays their set-up once per command, a
// server once), so extra is an argument.
func (c Choice) Fit(work, extra time.Duration) Choice {
	k := len(c.Adapters)
	if k <= 1 {
		return c
	}
	if saved := work - work/time.Duration(k); work > 0 && saved > extra {
		return c
	}
	c.Adapters = c.Adapters[:1:1]
	if len(c.refs) > 0 {
		c.refs = c.refs[:1:1]
	}
	return c
}

// Software reports whether every adapter chosen is a software renderer
// (an adapter of type "cpu", such as lavapipe or llvmpipe): the CPU in
// disguise, which work that the CPU backend does as well should not use.
// It is false for the CPU backend, which chooses no adapter.
func (c Choice) Software() bool {
	if len(c.Adapters) == 0 {
		return false
	}
	for _, a := range c.Adapters {
		if !a.Software() {
			return false
		}
	}
	return true
}

// OpenDevices opens the devices of the choice, one Context per adapter,
// each on its own goroutine, and returns them in the order of Adapters:
// one nil Context for the CPU backend. Where one fails, those opened are
// closed and the errors returned joined. sched.Open makes the Group of
// them that a program runs on; the Contexts are the caller's to close.
func (c Choice) OpenDevices() ([]*Context, error) {
	if c.CPU {
		return []*Context{nil}, nil
	}
	if len(c.Adapters) == 0 || len(c.refs) != len(c.Adapters) {
		return nil, errors.New("wgpu: a Choice chooses no adapter: make it with Choose")
	}
	if len(c.refs) == 1 {
		ctx, err := openOn(c.refs[0].e, c.refs[0].i, c.opts)
		if err != nil {
			return nil, err
		}
		return []*Context{ctx}, nil
	}
	ctxs := make([]*Context, len(c.refs))
	errs := make([]error, len(c.refs))
	var wg sync.WaitGroup
	for i, r := range c.refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctxs[i], errs[i] = openOn(r.e, r.i, c.opts)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, ctx := range ctxs {
			if ctx != nil {
				ctx.Close()
			}
		}
		return nil, err
	}
	return ctxs, nil
}

// unusableError is Open's error for an adapter that cannot run kernels.
func unusableError(info AdapterInfo) error {
	return fmt.Errorf("%w: adapter %d, %s (%s): %s", ErrNoAdapter, info.Index, info.Name, info.Backend, info.Unusable)
}
