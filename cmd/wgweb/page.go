//go:build js && wasm

package main

// The web page's entry points (web/index.html, web/app.js), on the global
// object wgpage. Each returns a Promise and works on a goroutine of its
// own: a Go function called from JavaScript must not block, and reading a
// Blob or waiting for the GPU blocks.
//
//	wgpage.open(gpu)                   -> {gpu, info, notice}
//	wgpage.b3sum(blob, progress)       -> {hex, gpu, device, notice}
//	wgpage.merkle(leaves)              -> {root, leaves, gpu, device, notice}
//	wgpage.proof(index)                -> the proof, as wgbench merkle prove prints it
//	wgpage.bench(bytes, reps, blob)    -> {mbps, ...}: the measurement mode
//
// open chooses the device: the visitor's GPU through navigator.gpu, or the
// CPU (a nil Context) where there is none, it fails to open, or gpu is
// false. A GPU that is lost mid-way is closed, the work is done again on
// the CPU, and notice says so in words. gpu says whether a call ran on the
// GPU, device whether the page still has one.

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/internal/bytesize"
	"github.com/wgcompute/wgcompute/wgpu"
)

// maxLeavesFile is the largest leaves file the page reads: it is held
// whole in the tab's memory with the tree's nodes beside it, and a tab is
// killed near 1.5 GB on iOS and a wasm32 heap ends at 4 GiB.
const maxLeavesFile = 64 << 20

// blobPiece is the most bytes read from a Blob at once: each read is one
// ArrayBuffer the browser allocates, so reads stay small beside the tab's
// memory, and large enough that a read's promise costs little beside it.
const blobPiece = 8 << 20

// page is the state the page's calls share; its mutex runs them one at a
// time, since a Context is not safe for concurrent use.
type page struct {
	mu   sync.Mutex
	ctx  *wgpu.Context // nil: the CPU
	tree *merkle.Tree  // the last committed tree, for proofs
	// lost says why the GPU was given up, for the notice of later calls.
	lost string
}

func init() {
	p := &page{}
	js.Global().Set("wgpage", js.ValueOf(map[string]any{
		"open":   promiseFunc(p.open),
		"b3sum":  promiseFunc(p.b3sum),
		"merkle": promiseFunc(p.merkle),
		"proof":  promiseFunc(p.proof),
		"bench":  promiseFunc(p.bench),
	}))
}

// promiseFunc wraps fn as a JavaScript function returning a Promise that
// fn's result resolves, or its error rejects with an Error of its text. A
// panic in fn rejects it too, rather than ending the program.
func promiseFunc(fn func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) any {
		args = append([]js.Value(nil), args...)
		var executor js.Func
		executor = js.FuncOf(func(this js.Value, pa []js.Value) any {
			resolve, reject := pa[0], pa[1]
			go func() {
				defer executor.Release()
				v, err := func() (v any, err error) {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("internal error: %v", r)
						}
					}()
					return fn(args)
				}()
				if err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				resolve.Invoke(v)
			}()
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	})
}

// await blocks the calling goroutine until the promise p settles, and
// returns its value or its rejection as an error.
func await(p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	onOK := js.FuncOf(func(this js.Value, a []js.Value) any {
		ch <- settled{v: arg(a, 0)}
		return nil
	})
	onErr := js.FuncOf(func(this js.Value, a []js.Value) any {
		ch <- settled{err: jsError(arg(a, 0))}
		return nil
	})
	defer onOK.Release()
	defer onErr.Release()
	p.Call("then", onOK, onErr)
	s := <-ch
	return s.v, s.err
}

func arg(a []js.Value, i int) js.Value {
	if i < len(a) {
		return a[i]
	}
	return js.Undefined()
}

// jsError turns a rejection's value (an Error or a DOMException, with a
// name and a message, or anything else) into a Go error.
func jsError(v js.Value) error {
	if v.Type() == js.TypeObject && v.Get("message").Type() == js.TypeString {
		name := v.Get("name").String()
		return fmt.Errorf("%s: %s", name, v.Get("message").String())
	}
	return errors.New(js.Global().Get("String").Invoke(v).String())
}

// open closes the device the page has, if any, and opens the visitor's
// GPU (args[0] true) or chooses the CPU. It returns what the page shows:
// whether the GPU is used, the device's description (AdapterInfo as JSON)
// and a notice when the GPU was asked for but could not be had.
func (p *page) open(args []js.Value) (any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx != nil {
		p.ctx.Close()
		p.ctx = nil
	}
	p.lost = ""
	notice := ""
	if arg(args, 0).Truthy() {
		if js.Global().Get("navigator").Get("gpu").IsUndefined() {
			notice = "This browser has no WebGPU (navigator.gpu is missing): hashing runs on the CPU, in WebAssembly. " +
				"Chrome and Edge 113 or later have WebGPU; Firefox and Safari only in recent versions or behind a setting."
		} else if ctx, err := wgpu.Open(wgpu.Options{}); err != nil {
			notice = "WebGPU is present but no GPU device could be opened (" + err.Error() + "): hashing runs on the CPU, in WebAssembly."
		} else {
			p.ctx = ctx
		}
	}
	return p.status(notice)
}

// status is the page's view of the device: {gpu, info, notice}.
func (p *page) status(notice string) (any, error) {
	info, err := json.Marshal(p.ctx.Info())
	if err != nil {
		return nil, err
	}
	return map[string]any{"gpu": p.ctx != nil, "info": string(info), "notice": notice}, nil
}

// onGPU runs fn on the page's device. If the GPU is lost on the way, it
// is closed and fn runs again on the CPU, as do all later calls; if the
// GPU fails otherwise (a kernel the browser's compiler rejects), fn runs
// again on the CPU this once. notice says which, and why, in words. A
// file the browser cannot read is not tried again.
func (p *page) onGPU(fn func(ctx *wgpu.Context) error) (notice string, onGPU bool, err error) {
	err = fn(p.ctx)
	switch {
	case p.ctx == nil || err == nil || errors.Is(err, errBlobRead):
		return p.lost, p.ctx != nil, err
	case errors.Is(err, wgpu.ErrDeviceLost):
		p.ctx.Close()
		p.ctx = nil
		p.lost = "The GPU device was lost (" + err.Error() + "). Everything since runs on the CPU; reload the page to use the GPU again."
		notice = p.lost
	default:
		notice = "The GPU could not do this (" + err.Error() + "); it was done on the CPU instead, with the same result."
	}
	return notice, false, fn(nil)
}

// b3sum hashes the Blob (a File) args[0], calling args[1] (when a
// function) with the bytes read so far and the total as it goes, and
// returns {hex, gpu, device, notice}.
func (p *page) b3sum(args []js.Value) (any, error) {
	blob, progress := arg(args, 0), arg(args, 1)
	if blob.Type() != js.TypeObject || blob.Get("size").Type() != js.TypeNumber {
		return nil, errors.New("b3sum: expected a File or Blob")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var sum []byte
	notice, gpu, err := p.onGPU(func(ctx *wgpu.Context) error {
		e, err := blake3.NewEngine(ctx, blake3.Options{})
		if err != nil {
			return err
		}
		defer e.Release()
		r := newBlobReader(blob, progress)
		sum, err = e.SumReader(r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("b3sum: %w", err)
	}
	return map[string]any{"hex": hex.EncodeToString(sum), "gpu": gpu, "device": p.ctx != nil, "notice": notice}, nil
}

// merkle commits to the leaves in args[0] (a Uint8Array of N×32 bytes,
// as wgbench merkle --in reads them) with BLAKE3 merges, keeps the tree
// for proof, and returns {root, leaves, gpu, device, notice}.
func (p *page) merkle(args []js.Value) (any, error) {
	a := arg(args, 0)
	if !a.InstanceOf(js.Global().Get("Uint8Array")) {
		return nil, errors.New("merkle: expected the leaves as a Uint8Array")
	}
	n := a.Get("length").Int()
	switch {
	case n == 0:
		return nil, errors.New("merkle: no leaves: add at least one file")
	case n%32 != 0:
		return nil, fmt.Errorf("merkle: the leaves are %d bytes, not a whole number of 32-byte leaves", n)
	case n > maxLeavesFile:
		return nil, fmt.Errorf("merkle: %s of leaves is more than this page holds in a browser tab (%s, %d leaves); wgbench merkle builds larger trees",
			bytesize.Tenths(n), bytesize.Format(maxLeavesFile), maxLeavesFile/32)
	}
	raw := make([]byte, n)
	js.CopyBytesToGo(raw, a)
	leaves := make([][32]byte, n/32)
	for i := range leaves {
		copy(leaves[i][:], raw[32*i:])
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	notice, gpu, err := p.onGPU(func(ctx *wgpu.Context) error {
		t, err := merkle.Build(ctx, leaves, blake3.MerkleMerge{}, merkle.Options{})
		p.tree = t
		return err
	})
	if err != nil {
		p.tree = nil
		return nil, fmt.Errorf("merkle: %w", err)
	}
	root := p.tree.Root()
	return map[string]any{"root": hex.EncodeToString(root[:]), "leaves": len(leaves), "gpu": gpu, "device": p.ctx != nil, "notice": notice}, nil
}

// proof returns the proof of leaf args[0] of the last tree, as wgbench
// merkle prove prints it (indented JSON and a newline).
func (p *page) proof(args []js.Value) (any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tree == nil {
		return nil, errors.New("proof: commit a tree first")
	}
	i := arg(args, 0)
	if i.Type() != js.TypeNumber {
		return nil, errors.New("proof: expected a leaf index")
	}
	pr, err := p.tree.Proof(i.Int())
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return nil, err
	}
	return string(b) + "\n", nil
}

// bench is the measurement mode: it hashes args[0] bytes (a pattern made
// in Go memory, or the Blob args[2] when given) args[1] times on the
// page's device, after one warm-up run, and returns the best run's MB/s
// and seconds with the hash, and the trace of every run (wgpu.WriteTrace).
func (p *page) bench(args []js.Value) (any, error) {
	n, reps, blob := arg(args, 0), arg(args, 1), arg(args, 2)
	if n.Type() != js.TypeNumber || n.Int() < 0 || reps.Type() != js.TypeNumber || reps.Int() < 1 {
		return nil, errors.New("bench: expected a byte count and a number of runs (at least 1)")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	data := make([]byte, n.Int())
	for i := range data {
		data[i] = byte(i % 251) // b3sum's test input pattern
	}
	var t, bestT wgpu.Timing
	e, err := blake3.NewEngine(p.ctx, blake3.Options{Timing: &t})
	if err != nil {
		return nil, err
	}
	defer e.Release()
	wgpu.EnableTrace(true)
	defer wgpu.EnableTrace(false)
	var sum []byte
	best := time.Duration(1<<63 - 1)
	for r := -1; r < reps.Int(); r++ {
		start := time.Now()
		if blob.Truthy() {
			sum, err = e.SumReader(newBlobReader(blob, js.Undefined()))
		} else {
			sum, err = e.Sum(data)
		}
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		if d := time.Since(start); r >= 0 && d < best {
			best, bestT = d, t
		}
	}
	size := n.Int()
	if blob.Truthy() {
		size = blob.Get("size").Int()
	}
	var trace strings.Builder
	if err := wgpu.WriteTrace(&trace); err != nil {
		return nil, err
	}
	return map[string]any{"bytes": size, "seconds": best.Seconds(), "mbps": float64(size) / best.Seconds() / 1e6,
		"hex": hex.EncodeToString(sum), "gpu": p.ctx != nil, "trace": trace.String(),
		"kernel_seconds": bestT.Kernel.Seconds(), "kernel_measured": bestT.Measured, "wait_seconds": bestT.Wall.Seconds()}, nil
}

// errBlobRead is wrapped by the errors of reading a Blob.
var errBlobRead = errors.New("the browser could not read")

// blobReader reads a Blob (a File) as an io.Reader, io.ReaderAt and
// io.Seeker, so that blake3 knows its size and reads it in large pieces,
// and reports progress to a JavaScript function.
type blobReader struct {
	blob     js.Value
	size     int64
	pos      int64
	done     atomic.Int64
	progress js.Value   // function(done, total), or undefined
	mu       sync.Mutex // the pieces may be read on several goroutines
	last     time.Time
}

func newBlobReader(blob, progress js.Value) *blobReader {
	return &blobReader{blob: blob, size: int64(blob.Get("size").Float()), progress: progress}
}

// ReadAt reads len(b) bytes at off, in pieces of at most blobPiece, each
// an ArrayBuffer of a slice of the Blob copied into b.
func (r *blobReader) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read at negative offset %d", off)
	}
	n := 0
	for n < len(b) {
		if off >= r.size {
			return n, io.EOF
		}
		k := int64(min(len(b)-n, blobPiece))
		k = min(k, r.size-off)
		ab, err := await(r.blob.Call("slice", off, off+k).Call("arrayBuffer"))
		if err != nil {
			return n, fmt.Errorf("%w %s at byte %d (%w): the file may have been changed or removed since it was chosen, or the tab is out of memory", errBlobRead, r.name(), off, err)
		}
		got := js.CopyBytesToGo(b[n:n+int(k)], js.Global().Get("Uint8Array").New(ab))
		if int64(got) != k {
			return n + got, fmt.Errorf("the browser read %d bytes of %s at byte %d, asked for %d", got, r.name(), off, k)
		}
		n += got
		off += k
		r.report(k)
	}
	return n, nil
}

func (r *blobReader) name() string {
	if nm := r.blob.Get("name"); nm.Type() == js.TypeString {
		return fmt.Sprintf("%q", nm.String())
	}
	return "the data"
}

// report adds k bytes to the progress and tells the page, at most every
// 100 ms and at the end.
func (r *blobReader) report(k int64) {
	// A read past the end to see whether more follows counts twice.
	done := min(r.done.Add(k), r.size)
	if r.progress.Type() != js.TypeFunction {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); done >= r.size || now.Sub(r.last) >= 100*time.Millisecond {
		r.last = now
		r.progress.Invoke(float64(done), float64(r.size))
	}
}

// Read reads from the current position.
func (r *blobReader) Read(b []byte) (int, error) {
	if r.pos >= r.size {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), r.size-r.pos)]
	n, err := r.ReadAt(b, r.pos)
	r.pos += int64(n)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// Seek sets the position for Read.
func (r *blobReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += r.pos
	case io.SeekEnd:
		off += r.size
	default:
		return 0, fmt.Errorf("seek: bad whence %d", whence)
	}
	if off < 0 {
		return 0, fmt.Errorf("seek to negative position %d", off)
	}
	r.pos = off
	return off, nil
}
