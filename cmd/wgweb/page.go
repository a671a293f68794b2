//go:build js && wasm

package main

// The web page's entry points (web/index.html, web/app.js), on the global
// object wgpage, beside main.go's wgcompute (whose selftest the page runs).
// Each returns a Promise, as main.go's do (asyncFunc).
//
//	wgpage.open(gpu)                   -> {gpu, info, notice}
//	wgpage.b3sum(blob, progress)       -> {hex, gpu, device, notice}
//	wgpage.merkle(leaves)              -> {root, leaves, gpu, device, notice}
//	wgpage.proof(index)                -> the proof, as wgbench merkle prove prints it
//	wgpage.bench(bytes, reps, blob)    -> {mbps, ...}: the measurement mode
//	wgpage.dispatch(n, reps)           -> {submission_ms, per_dispatch_us}: its bridge cost
//
// open chooses the device: the visitor's GPU through navigator.gpu (the
// Context main.go's calls share, with WebGPU's default limits: a browser
// adapter makes one device), or the CPU (a nil Context) where there is
// none, it fails to open, or gpu is false. A GPU that is lost mid-way is
// given up, the work is done again on the CPU, and notice says so in
// words. gpu says whether a call ran on the GPU, device whether the page
// still has one.

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
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/internal/webbench"
	"github.com/wgcompute/wgcompute/internal/base/trace"
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
// time, since a Context is not safe for concurrent use (the page also
// queues its calls, so that main.go's selftest never runs beside them).
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
		"open":     asyncFunc(p.open),
		"b3sum":    asyncFunc(p.b3sum),
		"merkle":   asyncFunc(p.merkle),
		"proof":    asyncFunc(p.proof),
		"bench":    asyncFunc(p.bench),
		"dispatch": asyncFunc(p.dispatch),
	}))
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

// open chooses the visitor's GPU (args[0] true) or the CPU. It returns
// what the page shows: whether the GPU is used, the device's description
// (AdapterInfo as JSON) and a notice when the GPU was asked for but could
// not be had.
func (p *page) open(args []js.Value) (func() (any, error), error) {
	useGPU := arg(args, 0).Truthy()
	return func() (any, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.ctx = nil
		notice := p.lost
		switch {
		case !useGPU || p.lost != "":
		case js.Global().Get("navigator").Get("gpu").IsUndefined():
			notice = "This browser has no WebGPU (navigator.gpu is missing): hashing runs on the CPU, in WebAssembly. " +
				"Chrome and Edge 113 or later have WebGPU; Firefox and Safari only in recent versions or behind a setting."
		default:
			ctx, err := contextFor(js.Null(), false)
			if err != nil {
				notice = "WebGPU is present but no GPU device could be opened (" + err.Error() + "): hashing runs on the CPU, in WebAssembly."
			}
			p.ctx = ctx
		}
		return p.status(notice)
	}, nil
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
		forget(p.ctx) // main.go's: its next call opens a new device
		p.ctx = nil
		p.lost = "The GPU device was lost (" + err.Error() + "). Everything since runs on the CPU; reload the page to use the GPU again."
		notice = p.lost
	default:
		notice = "The GPU could not do this (" + err.Error() + "); it was done on the CPU instead."
	}
	return notice, false, fn(nil)
}

// b3sum hashes the Blob (a File) args[0], calling args[1] (when a
// function) with the bytes read so far and the total as it goes, and
// returns {hex, gpu, device, notice}.
func (p *page) b3sum(args []js.Value) (func() (any, error), error) {
	blob, progress := arg(args, 0), arg(args, 1)
	if !blob.InstanceOf(js.Global().Get("Blob")) {
		return nil, errors.New("b3sum: expected a File or Blob")
	}
	return func() (any, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		var sum []byte
		notice, gpu, err := p.onGPU(func(ctx *wgpu.Context) error {
			e, err := blake3.NewEngine(ctx, blake3.Options{})
			if err != nil {
				return err
			}
			defer e.Release()
			sum, err = e.SumReader(newBlobReader(blob, progress))
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("b3sum: %w", err)
		}
		return map[string]any{"hex": hex.EncodeToString(sum), "gpu": gpu, "device": p.ctx != nil, "notice": notice}, nil
	}, nil
}

// merkle commits to the leaves in args[0] (a Uint8Array of N×32 bytes,
// as wgbench merkle --in reads them) with BLAKE3 merges, keeps the tree
// for proof, and returns {root, leaves, gpu, device, notice}.
func (p *page) merkle(args []js.Value) (func() (any, error), error) {
	if a := arg(args, 0); a.InstanceOf(js.Global().Get("Uint8Array")) && a.Length() > maxLeavesFile {
		return nil, fmt.Errorf("merkle: %s of leaves is more than this page holds in a browser tab (%s, %d leaves); wgbench merkle builds larger trees",
			bytesize.Tenths(a.Length()), bytesize.Format(maxLeavesFile), maxLeavesFile/32)
	}
	raw, err := bytesArg(args, 0, "merkle's leaves")
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || len(raw)%32 != 0 {
		return nil, fmt.Errorf("merkle: %d bytes of leaves: give one or more 32-byte leaves", len(raw))
	}
	leaves := make([][32]byte, len(raw)/32)
	for i := range leaves {
		copy(leaves[i][:], raw[32*i:])
	}
	return func() (any, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.tree = nil
		var t *merkle.Tree
		notice, gpu, err := p.onGPU(func(ctx *wgpu.Context) (err error) {
			t, err = merkle.Build(ctx, leaves, blake3.MerkleMerge{}, merkle.Options{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("merkle: %w", err)
		}
		p.tree = t
		root := t.Root()
		return map[string]any{"root": hex.EncodeToString(root[:]), "leaves": len(leaves), "gpu": gpu, "device": p.ctx != nil, "notice": notice}, nil
	}, nil
}

// proof returns the proof of leaf args[0] of the last tree, as wgbench
// merkle prove prints it (indented JSON and a newline).
func (p *page) proof(args []js.Value) (func() (any, error), error) {
	i := arg(args, 0)
	if i.Type() != js.TypeNumber {
		return nil, errors.New("proof: expected a leaf index")
	}
	return func() (any, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.tree == nil {
			return nil, errors.New("proof: commit a tree first")
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
	}, nil
}

// bench is the measurement mode: it hashes args[0] bytes (a pattern made
// in Go memory, or the Blob args[2] when given) args[1] times on the
// page's device, after one warm-up run, and returns the best run's MB/s
// and seconds with the hash, its kernel time, and the trace of every run
// (trace.Write).
func (p *page) bench(args []js.Value) (func() (any, error), error) {
	n, reps, blob := arg(args, 0), arg(args, 1), arg(args, 2)
	if n.Type() != js.TypeNumber || n.Int() < 0 || reps.Type() != js.TypeNumber || reps.Int() < 1 {
		return nil, errors.New("bench: expected a byte count and a number of runs (at least 1)")
	}
	fromBlob := blob.InstanceOf(js.Global().Get("Blob"))
	return func() (any, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		size := n.Int()
		if fromBlob {
			size = blob.Get("size").Int()
		}
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
		trace.Enable(true)
		defer trace.Enable(false)
		var sum []byte
		best := time.Duration(1<<63 - 1)
		for r := -1; r < reps.Int(); r++ {
			start := time.Now()
			if fromBlob {
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
		var tr strings.Builder
		if err := trace.Write(&tr); err != nil {
			return nil, err
		}
		return map[string]any{"bytes": size, "seconds": best.Seconds(), "mbps": float64(size) / best.Seconds() / 1e6,
			"hex": hex.EncodeToString(sum), "gpu": p.ctx != nil, "trace": tr.String(),
			"kernel_seconds": bestT.Kernel.Seconds(), "kernel_measured": bestT.Measured, "wait_seconds": bestT.Wall.Seconds()}, nil
	}, nil
}

// dispatch measures what a dispatch costs through the browser
// (webbench.DispatchCost: n dispatches in one submission against one),
// reps times after a warm-up, on the page's GPU.
func (p *page) dispatch(args []js.Value) (func() (any, error), error) {
	n, reps := arg(args, 0), arg(args, 1)
	if n.Type() != js.TypeNumber || reps.Type() != js.TypeNumber {
		return nil, errors.New("dispatch: expected a number of dispatches and of runs")
	}
	return func() (any, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		d, err := webbench.DispatchCost(p.ctx, n.Int(), reps.Int())
		if err != nil {
			return nil, err
		}
		return map[string]any{"submission_ms": d.Submission.Seconds() * 1e3, "per_dispatch_us": d.PerDispatch.Seconds() * 1e6, "n": d.N}, nil
	}, nil
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
