// Command e2e times the library's end-to-end paths from host memory on one
// adapter and breaks each into the phases of the process trace (upload,
// download, kernels, allocations, checks), per call: the measurements
// behind BENCHMARKS.md's end-to-end tables and the choices they justify.
//
//	go run ./bench/e2e [-what transfer,staging,blake3,merkle,eigen,rescue,group] [-reps 5] [-size BYTES] [-backend vulkan]
//	go run ./bench/e2e -what read -file PATH    (a file read by 16 goroutines, nothing hashed)
//	go run ./bench/e2e -what scaling [-devices all] [-counts 1,2,all] [-quick] [-warm 300ms] [-resident BYTES] [-pairs N] [-leaves N] [-commit-rows N] [-upload BYTES] [-memcpy BYTES] [-same N]
//	go run ./bench/e2e -what scaling-commit [-devices all] [-counts 1,2,all] [-commit-rows N]
//	go run ./bench/e2e -what ladder [-devices all] [-reps 5] [-ladder-max 24]
//	go run ./bench/e2e -what samegpu [-pairs N]   (two devices on one GPU against one)
//
// scaling runs the several-GPU targets on the first k devices of a Group,
// for each k of -counts (1, 2 and all by default), and prints them side
// by side in one table, each with its speed-up over the first column and
// each device's kernel time per call (sched.Group.KernelTimes), so that a
// share slower than the others shows: Poseidon2 commitments of a
// Goldilocks and a BabyBear matrix of 128 columns (CommitMatrix on a Group, as the
// Group decides and split over all k), BLAKE3 of data resident on the GPUs
// (each its share, SumPiecesBuffer, then Combine), Rescue MergeMany on a Group and
// a Rescue Merkle Root on a Group from host memory, and uploads to every GPU at
// once (the host's transfer bound); before them the host's own memcpy
// rate and its NUMA nodes, the bound on filling staging. Every GPU is set
// up and warmed (sched.Group.Warm) before each timed measurement, and every
// Group size's results are checked against the first's. -quick scales
// the sizes down to a smoke run; -same N makes a Group of N members on the
// first device, for a smoke run on one adapter. After the table, the
// times of small commitments on one device and split, where a second
// starts to pay.
// scaling-commit runs the commitments alone. ladder times Root on a Group (Rescue,
// BLAKE3) and MergeMany on a Group from 2^12 to 2^24 items on the first device and
// on the whole Group, side by side, and checks that their results agree.
//
// Each measurement runs once to warm up, then -reps times; it prints the
// median and the minimum, then each traced phase's time per call.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/envopts"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

func main() {
	what := flag.String("what", "transfer,blake3,merkle,eigen,rescue,group", "comma-separated measurements: transfer, staging, blake3, merkle, eigen, rescue, group, read")
	reps := flag.Int("reps", 5, "timed calls per measurement, after one warm-up call")
	size := flag.Int("size", 1<<30, "bytes of host data for the transfer, BLAKE3 and Merkle measurements")
	backend := flag.String("backend", "", "backend (default: any)")
	file := flag.String("file", "", "the file -what read reads")
	n := flag.Int("n", 8192, "matrix order for eigen")
	devices := flag.String("devices", "all", "scaling: the Group's devices, as wgpu.Options.Devices reads them")
	resident := flag.Uint64("resident", 8<<30, "scaling: bytes of BLAKE3 input resident on the GPUs")
	pairs := flag.Int("pairs", 1<<26, "scaling: Rescue merges")
	leaves := flag.Int("leaves", 1<<24, "scaling: Rescue Merkle leaves")
	ladderMax := flag.Int("ladder-max", 24, "ladder: the largest size, as a power of two")
	commitRows := flag.Int("commit-rows", 1<<20, "scaling: rows of the 128-column matrices committed")
	counts := flag.String("counts", "1,2,all", "scaling: the Group sizes measured, the first k devices for each k (\"all\": every device)")
	uploadBytes := flag.Int("upload", 1<<30, "scaling: bytes uploaded to each device at once")
	memcpyBytes := flag.Int("memcpy", 1<<30, "scaling: bytes of the host memcpy measurement")
	warm := flag.Duration("warm", 300*time.Millisecond, "scaling: how long every GPU is kept busy (sched.Group.Warm) before each timed measurement")
	same := flag.Int("same", 0, "scaling: a Group of this many members on the first device, for a smoke run where one adapter is all there is")
	quick := flag.Bool("quick", false, "scaling: every size scaled down and at most 2 reps, a smoke run")
	flag.Parse()
	// The WGCOMPUTE_* variables set what the flags do not (the staging
	// and feature experiments of BENCHMARKS.md).
	env, err := envopts.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	opts := env.Options
	if *backend != "" {
		opts.Backend = *backend
	}
	if *what == "samegpu" {
		if err := sameGPU(opts, *reps, *pairs); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			os.Exit(1)
		}
		return
	}
	if *what == "ladder" {
		opts.Devices = *devices
		if err := ladder(opts, *reps, *ladderMax); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			os.Exit(1)
		}
		return
	}
	if *what == "scaling" || *what == "scaling-commit" {
		opts.Devices = *devices
		cfg := scaleConfig{reps: *reps, resident: *resident, pairs: *pairs, leaves: *leaves, commitRows: *commitRows,
			upload: *uploadBytes, memcpy: *memcpyBytes, counts: *counts, same: *same, warm: *warm, commitOnly: *what == "scaling-commit"}
		if *quick {
			cfg = cfg.quick()
		}
		if err := scaling(opts, cfg); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(strings.Split(*what, ","), *reps, *size, *n, opts, *file); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
}

func run(what []string, reps, size, n int, opts wgpu.Options, file string) error {
	if slices.Contains(what, "read") {
		return readFile(file)
	}
	trace.Enable(true)
	ctx, err := wgpu.Open(opts)
	if err != nil {
		return err
	}
	defer ctx.Close()
	fmt.Printf("%s (%s), %d bytes\n", ctx.Info().Name, ctx.Info().Backend, size)
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	m := measurer{reps: reps}
	for _, w := range what {
		switch w {
		case "transfer":
			buf, err := ctx.NewBuffer("e2e", uint64(size))
			if err != nil {
				return err
			}
			out := make([]byte, size)
			m.run("upload (until the GPU has it)", func() error {
				if err := ctx.Upload(buf, 0, data); err != nil {
					return err
				}
				return ctx.Clear(buf, 0, 4)
			})
			m.run("download into reused memory", func() error { return ctx.Download(out, buf, 0) })
			m.run("download into new memory", func() error { return ctx.Download(make([]byte, size), buf, 0) })
			m.run("allocate and touch host memory (one core)", func() error {
				b := make([]byte, size)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				return nil
			})
			buf.Release()
		case "staging":
			if err := staging(opts, data); err != nil {
				return err
			}
		case "blake3":
			m.run("blake3.Sum", func() error { _, err := blake3.Sum(ctx, data); return err })
			e, err := blake3.NewEngine(ctx, blake3.Options{})
			if err != nil {
				return err
			}
			m.run("blake3 Engine.Sum", func() error { _, err := e.Sum(data); return err })
			e.Release()
		case "merkle":
			leaves := leavesOf(data)
			b, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: blake3.MerkleMerge{}}}, merkle.Options{})
			if err != nil {
				return err
			}
			m.run(fmt.Sprintf("merkle Build with a Committer, %d BLAKE3 leaves", len(leaves)), func() error { _, err := merkle.Build(ctx, leaves, nil, merkle.Options{Committer: b}); return err })
			var into *merkle.Tree
			m.run("merkle Committer.BuildInto (the tree's memory reused)", func() error { into, err = b.BuildInto(into, leaves); return err })
			m.run("merkle Root with a Committer", func() error { _, err := merkle.Root(ctx, leaves, nil, merkle.Options{Committer: b}); return err })
			b.Release()
		case "eigen":
			h := eigen.Hilbert(n)
			m.run(fmt.Sprintf("eigen.MaxEigen, %d² Hilbert", n), func() error { _, err := eigen.MaxEigen(ctx, h, n, eigen.Options{}); return err })
			s, err := eigen.NewSolver(ctx, n, eigen.Options{})
			if err != nil {
				return err
			}
			m.run("eigen Solver Load+Solve", func() error {
				if err := s.Load(h); err != nil {
					return err
				}
				_, err := s.Solve()
				return err
			})
			s.Release()
		case "rescue":
			pairs := make([][8]uint64, 4096*4096)
			dst := make([][4]uint64, len(pairs))
			m.run("rescue.MergeMany, 4096² pairs", func() error { return rescue.Batch.MergeMany(ctx, dst, pairs, batch.Options{}) })
		case "group":
			// Two members on one GPU: the splits' cost where no second
			// GPU can share the work.
			g, err := sched.NewGroup(ctx, ctx)
			if err != nil {
				return err
			}
			m.run("blake3.SumReader on a Group, 2 members on 1 GPU", func() error {
				_, err := blake3.SumReader(g, bytes.NewReader(data), blake3.Options{})
				return err
			})
			leaves := leavesOf(data)
			m.run("merkle.Root on a Group, 2 members on 1 GPU", func() error { _, err := merkle.Root(g, leaves, blake3.MerkleMerge{}, merkle.Options{}); return err })
			pairs := make([][8]uint64, 1<<22)
			dst := make([][4]uint64, len(pairs))
			m.run("rescue.MergeMany, 2^22 pairs, 1 Context", func() error { return rescue.Batch.MergeMany(ctx, dst, pairs, batch.Options{}) })
			m.run("rescue.Batch.MergeMany on a Group, 2^22 pairs, 2 members on 1 GPU", func() error { return rescue.Batch.MergeMany(g, dst, pairs, batch.Options{}) })
		default:
			return fmt.Errorf("unknown measurement %q", w)
		}
	}
	return nil
}

// leavesOf copies the start of data into 32-byte leaves, a power of two
// of them.
func leavesOf(data []byte) [][32]byte {
	leaves := make([][32]byte, wgpu.PowerOfTwoBelow(uint64(max(len(data)/32, 2))))
	for i := range leaves {
		copy(leaves[i][:], data[32*i:])
	}
	return leaves
}

// measurer times calls and prints the trace's phases per call.
type measurer struct{ reps int }

// run times call as measurer says and returns the median (0 if a call
// failed).
func (m measurer) run(name string, call func() error) time.Duration {
	if err := call(); err != nil {
		fmt.Printf("%s: %v\n", name, err)
		return 0
	}
	before := phases()
	times, err := m.times(call)
	if err != nil {
		fmt.Printf("%s: %v\n", name, err)
		return 0
	}
	fmt.Printf("%s: median %.2f ms, min %.2f ms\n", name, ms(times[len(times)/2]), ms(times[0]))
	for _, r := range trace.Rows() {
		if c := r.Count - before[r.Phase].Count; c > 0 {
			fmt.Printf("    %-44s %5d per call %9.2f ms per call\n", r.Phase, c/m.reps, ms(r.Total-before[r.Phase].Total)/float64(m.reps))
		}
	}
	return times[len(times)/2]
}

// runQuiet times call as run does, printing nothing, and returns the
// median (0 if a call failed).
func (m measurer) runQuiet(call func() error) time.Duration {
	if err := call(); err != nil {
		return 0
	}
	times, err := m.times(call)
	if err != nil {
		return 0
	}
	return times[len(times)/2]
}

// times calls call m.reps times and returns the times sorted.
func (m measurer) times(call func() error) ([]time.Duration, error) {
	times := make([]time.Duration, m.reps)
	for i := range times {
		start := time.Now()
		if err := call(); err != nil {
			return nil, err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times, nil
}

func phases() map[string]trace.Row {
	rows := map[string]trace.Row{}
	for _, r := range trace.Rows() {
		rows[r.Phase] = r
	}
	return rows
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// staging times a one-shot upload and download (a fresh Context, whose
// staging ring is created by the first transfer) and then a warm one, for
// several rings: what the default ring was chosen from.
func staging(opts wgpu.Options, data []byte) error {
	for _, ring := range []wgpu.TransferOptions{{SlotBytes: 64 << 20, Slots: 4}, {SlotBytes: 32 << 20, Slots: 2}, {SlotBytes: 64 << 20, Slots: 2}, {SlotBytes: 16 << 20, Slots: 2}} {
		for range 2 {
			o := opts
			o.Transfer = ring
			ctx, err := wgpu.Open(o)
			if err != nil {
				return err
			}
			buf, err := ctx.NewBuffer("e2e", uint64(len(data)))
			if err != nil {
				return err
			}
			out := make([]byte, len(data))
			var t [4]time.Duration
			for i := range t {
				start := time.Now()
				if i < 2 {
					err = ctx.Upload(buf, 0, data)
					if err == nil {
						err = ctx.Clear(buf, 0, 4)
					}
				} else {
					err = ctx.Download(out, buf, 0)
				}
				if err != nil {
					return err
				}
				t[i] = time.Since(start)
			}
			buf.Release()
			ctx.Close()
			fmt.Printf("ring of %d × %d MiB: upload first %.1f ms, then %.1f ms; download first %.1f ms, then %.1f ms\n",
				ring.Slots, ring.SlotBytes>>20, ms(t[0]), ms(t[1]), ms(t[2]), ms(t[3]))
		}
	}
	return nil
}

// readFile reads path with 16 goroutines, 1 MiB at a time, three times,
// hashing nothing: the host's read bandwidth, against which hashing a
// file is measured.
func readFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	for range 3 {
		start := time.Now()
		var next atomic.Int64
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 1<<20)
				for off := next.Add(1<<20) - 1<<20; off < size; off = next.Add(1<<20) - 1<<20 {
					f.ReadAt(buf, off)
				}
			}()
		}
		wg.Wait()
		d := time.Since(start)
		fmt.Printf("read %d bytes with 16 goroutines: %.1f ms, %.1f GB/s\n", size, ms(d), float64(size)/d.Seconds()/1e9)
	}
	return nil
}

// openGroup opens the Group opts choose and names its devices.
func openGroup(opts wgpu.Options) (*sched.Group, error) {
	g, err := sched.OpenGroup(opts)
	if err != nil {
		return nil, err
	}
	for i, c := range g.Contexts() {
		fmt.Printf("device %d: %s (%s)\n", i, c.Info().Name, c.Info().Backend)
	}
	return g, nil
}
