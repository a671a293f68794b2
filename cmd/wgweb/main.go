//go:build js

// Command wgweb is wgcompute in a web page: built with GOOS=js
// GOARCH=wasm and loaded with Go's wasm_exec.js, it defines
// globalThis.wgcompute, whose functions return Promises and run their Go
// work on goroutines, so the page stays responsive:
//
//	wgcompute.selftest({limits, cpu, families, onResult}) → Promise<report>
//	wgcompute.b3sum(bytes, {cpu}) → Promise<hex>
//	wgcompute.merkleRoot(leaves, {hash, cpu}) → Promise<hex>
//	wgcompute.device({limits, cpu}) → Promise<adapter>
//	wgcompute.families: the self-test's family names, in its order
//
// selftest runs `wgbench selftest`'s families and cases on the browser's
// WebGPU adapter and resolves to the report `wgbench selftest --json`
// writes (parsed); onResult(result, line) is called per family as it
// finishes, with the line wgbench prints. limits is "webgpu" (the
// default: the limits WebGPU guarantees, what a browser grants without
// asking) or "adapter" (the adapter's own); cpu: true runs on the CPU
// backend; families names a subset. b3sum is the BLAKE3 hash of a
// Uint8Array; merkleRoot is the root of a Merkle tree whose leaves are
// the 32-byte digests of a Uint8Array (its length a multiple of 32),
// merged with hash (any name of algos/registry, as wgbench merkle --hash
// takes it; "blake3" the default). Without WebGPU (no navigator.gpu) b3sum and merkleRoot
// run on the CPU backend; device tells which one serves a call.
// web/wgcompute.js loads the module and waits for it.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall/js"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/internal/selftest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("selftest", asyncFunc(selftestJS))
	api.Set("b3sum", asyncFunc(b3sumJS))
	api.Set("merkleRoot", asyncFunc(merkleRootJS))
	api.Set("device", asyncFunc(deviceJS))
	var names []any
	for _, f := range selftest.Families() {
		names = append(names, f.Name)
	}
	api.Set("families", names)
	js.Global().Set("wgcompute", api)
	if ready := js.Global().Get("onwgcomputeready"); ready.Type() == js.TypeFunction {
		ready.Invoke(api)
	}
	select {} // the functions run on the page's calls
}

// asyncFunc makes fn a JavaScript function that returns a Promise: fn's
// synchronous part (reading its arguments) runs in the call, and the work
// it returns runs on a goroutine, since Go blocks on the browser's
// promises and a JavaScript call into Go must return first.
func asyncFunc(fn func(args []js.Value) (func() (any, error), error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		work, err := fn(args)
		var executor js.Func
		executor = js.FuncOf(func(_ js.Value, p []js.Value) any {
			resolve, reject := p[0], p[1]
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return nil
			}
			go func() {
				v, err := safely(work)
				if err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				resolve.Invoke(v)
			}()
			return nil
		})
		defer executor.Release() // the Promise constructor calls it at once
		return js.Global().Get("Promise").New(executor)
	})
}

// safely runs work, turning a panic into an error.
func safely(work func() (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("wgcompute: %v", r)
		}
	}()
	return work()
}

// options reads args[i] as an options object (absent: empty).
func options(args []js.Value, i int) js.Value {
	if i < len(args) && args[i].Type() == js.TypeObject {
		return args[i]
	}
	return js.Null()
}

func optString(o js.Value, name, def string) string {
	if o.IsNull() || o.Get(name).Type() != js.TypeString {
		return def
	}
	return o.Get(name).String()
}

func optBool(o js.Value, name string) bool {
	return !o.IsNull() && o.Get(name).Truthy()
}

// bytesArg copies args[i], a Uint8Array, into Go.
func bytesArg(args []js.Value, i int, what string) ([]byte, error) {
	if i >= len(args) || !args[i].InstanceOf(js.Global().Get("Uint8Array")) {
		return nil, fmt.Errorf("wgcompute: %s must be a Uint8Array", what)
	}
	b := make([]byte, args[i].Get("length").Int())
	js.CopyBytesToGo(b, args[i])
	return b, nil
}

// fromJSON turns a Go value into a JavaScript one through its JSON, so
// that JavaScript sees exactly the fields the JSON reports have.
func fromJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return js.Global().Get("JSON").Call("parse", string(b)), nil
}

// The page's Contexts, one per limits profile, opened on first use and
// kept: opening a device and compiling kernels is the slow part.
var (
	ctxMu    sync.Mutex
	contexts = map[string]*wgpu.Context{}
)

// limitsOf reads the limits option: "webgpu" (the default) or "adapter".
func limitsOf(o js.Value) (string, wgpu.Limits, error) {
	switch name := strings.ToLower(optString(o, "limits", "webgpu")); name {
	case "webgpu":
		return name, wgpu.WebGPULimits, nil
	case "adapter":
		return name, wgpu.Limits{}, nil
	default:
		return "", wgpu.Limits{}, fmt.Errorf("wgcompute: limits %q: accepted are webgpu (the default) and adapter", name)
	}
}

// contextFor returns the shared Context of the options (nil: the CPU
// backend, asked for with cpu: true). fallback makes an environment
// without WebGPU the CPU backend rather than an error.
func contextFor(o js.Value, fallback bool) (*wgpu.Context, error) {
	if optBool(o, "cpu") {
		return nil, nil
	}
	name, lim, err := limitsOf(o)
	if err != nil {
		return nil, err
	}
	ctxMu.Lock()
	defer ctxMu.Unlock()
	if c := contexts[name]; c != nil {
		return c, nil
	}
	c, err := wgpu.Open(wgpu.Options{Limits: lim})
	if err != nil {
		if fallback && errors.Is(err, wgpu.ErrNoAdapter) {
			return nil, nil
		}
		return nil, err
	}
	contexts[name] = c
	return c, nil
}

// forget closes and drops the shared Context ctx, so that the next call
// opens a new one: after its device was lost.
func forget(ctx *wgpu.Context) {
	if ctx == nil {
		return
	}
	ctxMu.Lock()
	defer ctxMu.Unlock()
	for name, c := range contexts {
		if c == ctx {
			delete(contexts, name)
			c.Close()
		}
	}
}

func selftestJS(args []js.Value) (func() (any, error), error) {
	o := options(args, 0)
	if _, _, err := limitsOf(o); err != nil {
		return nil, err
	}
	fams := selftest.Families()
	if !o.IsNull() && o.Get("families").Truthy() {
		list := o.Get("families")
		var names, known []string
		for i := 0; i < list.Length(); i++ {
			names = append(names, list.Index(i).String())
		}
		var chosen []selftest.Family
		for _, f := range fams {
			known = append(known, f.Name)
			if slices.Contains(names, f.Name) {
				chosen = append(chosen, f)
			}
		}
		for _, n := range names {
			if !slices.Contains(known, n) {
				return nil, fmt.Errorf("wgcompute: selftest: unknown family %q: accepted are %s", n, strings.Join(known, ", "))
			}
		}
		fams = chosen
	}
	onResult := js.Undefined()
	if !o.IsNull() && o.Get("onResult").Type() == js.TypeFunction {
		onResult = o.Get("onResult")
	}
	return func() (any, error) {
		golden, err := selftest.LoadGolden()
		if err != nil {
			return nil, err
		}
		ctx, err := contextFor(o, false)
		if err != nil {
			return nil, err
		}
		info := ctx.Info()
		file := selftest.NewFile()
		rep := selftest.Run(ctx, fams, golden, func(r selftest.Result) {
			if onResult.Type() == js.TypeFunction {
				v, err := fromJSON(r)
				if err == nil {
					onResult.Invoke(v, r.Line(info))
				}
			}
		})
		file.Add(rep)
		if !rep.Pass {
			// A failure may have lost the device (the failures say so):
			// the next call starts on a new one.
			forget(ctx)
		}
		return fromJSON(file)
	}, nil
}

func b3sumJS(args []js.Value) (func() (any, error), error) {
	data, err := bytesArg(args, 0, "b3sum's input")
	if err != nil {
		return nil, err
	}
	o := options(args, 1)
	return func() (any, error) {
		ctx, err := contextFor(o, true)
		if err != nil {
			return nil, err
		}
		d, err := blake3.Sum(ctx, data)
		if err != nil {
			if errors.Is(err, wgpu.ErrDeviceLost) {
				forget(ctx)
			}
			return nil, err
		}
		return fmt.Sprintf("%x", d), nil
	}, nil
}

// merkleHashes are the merges merkleRoot offers, by name: every hash of
// the registry.
func merkleHashes() []merkle.Hash {
	var hs []merkle.Hash
	for _, h := range registry.Hashes() {
		hs = append(hs, h.Merkle)
	}
	return hs
}

// defaultHash is merkleRoot's hash where none is named: the registry's
// for leaves of any bytes.
func defaultHash() string {
	h, _ := registry.Default(registry.Bytes)
	return h.Name
}

func merkleRootJS(args []js.Value) (func() (any, error), error) {
	raw, err := bytesArg(args, 0, "merkleRoot's leaves")
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || len(raw)%32 != 0 {
		return nil, fmt.Errorf("wgcompute: merkleRoot: %d bytes of leaves: give one or more 32-byte digests, concatenated", len(raw))
	}
	o := options(args, 1)
	name := optString(o, "hash", defaultHash())
	var hash merkle.Hash
	var names []string
	for _, h := range merkleHashes() {
		names = append(names, h.Name())
		if strings.EqualFold(h.Name(), name) {
			hash = h
		}
	}
	if hash == nil {
		return nil, fmt.Errorf("wgcompute: merkleRoot: unknown hash %q: accepted are %s", name, strings.Join(names, ", "))
	}
	leaves := make([][32]byte, len(raw)/32)
	for i := range leaves {
		copy(leaves[i][:], raw[32*i:])
	}
	return func() (any, error) {
		ctx, err := contextFor(o, true)
		if err != nil {
			return nil, err
		}
		root, err := merkle.Root(ctx, leaves, hash, merkle.Options{})
		if err != nil {
			if errors.Is(err, wgpu.ErrDeviceLost) {
				forget(ctx)
			}
			return nil, err
		}
		return fmt.Sprintf("%x", root), nil
	}, nil
}

func deviceJS(args []js.Value) (func() (any, error), error) {
	o := options(args, 0)
	return func() (any, error) {
		ctx, err := contextFor(o, true)
		if err != nil {
			return nil, err
		}
		return fromJSON(ctx.Info())
	}, nil
}
