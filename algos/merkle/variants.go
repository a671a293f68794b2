package merkle

import "github.com/wgcompute/wgcompute/internal/base/impl"

// The ways of building a tree that exist to be measured against the
// default are not in the API: they are registered in internal/base/impl, where
// the benchmarks, the self-test, wgbench's --approach and the tests list
// and force them by name, each variant a func(Options) Options that sets
// it on options (variants of different entries compose):
//
//   - "merkle": the approaches, in the order of their numbers: default
//     (the hash's tuner, else subtrees), level-per-dispatch,
//     workgroup-levels, subtrees;
//   - "merkle-passes": one-pass (the default: every dispatch of a
//     submission in one compute pass), pass-per-level (a pass each, to
//     measure what a pass costs);
//   - "merkle-top": host (the default: the levels narrower than the host
//     width merged on the host, Options.HostWidth), device (every level on
//     the device, to measure one against the other).
func init() {
	set := func(f func(o *Options)) func(Options) Options {
		return func(o Options) Options { f(&o); return o }
	}
	vs := []impl.Variant{{Name: "default", Impl: set(func(o *Options) { o.approach = 0 })}}
	for _, a := range approaches {
		vs = append(vs, impl.Variant{Name: a.String(), Impl: set(func(o *Options) { o.approach = a })})
	}
	impl.Register("merkle", vs)
	impl.Register("merkle-passes", []impl.Variant{
		{Name: "one-pass", Impl: set(func(o *Options) { o.passPerLevel = false })},
		{Name: "pass-per-level", Impl: set(func(o *Options) { o.passPerLevel = true })},
	})
	impl.Register("merkle-top", []impl.Variant{
		{Name: "host", Impl: set(func(o *Options) { o.deviceTop = false })},
		{Name: "device", Impl: set(func(o *Options) { o.deviceTop = true })},
	})
}
