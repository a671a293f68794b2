package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// scaleConfig is what -what scaling measures and how.
type scaleConfig struct {
	reps                      int
	resident                  uint64 // bytes of BLAKE3 input resident on the GPUs
	pairs, leaves, commitRows int
	upload                    int // bytes uploaded to each device at once
	memcpy                    int // bytes of the host's memcpy measurement
	counts                    string
	same                      int // a Group of this many members on the first adapter (smoke runs)
	warm                      time.Duration
	commitOnly                bool
}

// quick returns c scaled down to a smoke run that a software adapter
// finishes in seconds: the same measurements, small sizes, two reps.
func (c scaleConfig) quick() scaleConfig {
	c.reps = min(c.reps, 2)
	c.resident = 8 << 20
	c.pairs, c.leaves, c.commitRows = 1<<14, 1<<12, 1<<10
	c.upload, c.memcpy = 8<<20, 64<<20
	c.warm = min(c.warm, 20*time.Millisecond)
	return c
}

// groupCounts returns the Group sizes spec names among n devices: a
// comma-separated list of counts and "all", each at most n, in order,
// each once.
func groupCounts(spec string, n int) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		k := n
		if f != "all" {
			var err error
			if k, err = strconv.Atoi(f); err != nil || k < 1 {
				return nil, fmt.Errorf("-counts %q: %q is not a device count; accepted: counts from 1 and \"all\", separated by commas", spec, f)
			}
		}
		if k <= n && !slices.Contains(counts, k) {
			counts = append(counts, k)
		}
	}
	if len(counts) == 0 {
		return nil, fmt.Errorf("-counts %q: no count of at most the %d devices", spec, n)
	}
	slices.Sort(counts)
	return counts, nil
}

// cell is one measurement on k devices: the median wall time, the kernel
// time the call reports (the slowest device, plus any top on the first),
// each device's kernel time per call (Group.KernelTimes), and a note.
type cell struct {
	wall, kernel time.Duration
	perDevice    []time.Duration
	note         string
}

// scaleTable collects the measurements by work and Group size and prints
// them side by side, each with its speed-up over one device.
type scaleTable struct {
	counts []int
	order  []string
	rows   map[string]map[int]cell
}

func (t *scaleTable) add(name string, k int, c cell) {
	if t.rows == nil {
		t.rows = map[string]map[int]cell{}
	}
	if t.rows[name] == nil {
		t.rows[name] = map[int]cell{}
		t.order = append(t.order, name)
	}
	t.rows[name][k] = c
}

// print writes the table in Markdown: per Group size, the median wall
// time and the kernel time with their speed-ups over the smallest Group,
// then each device's kernel time per call.
func (t *scaleTable) print() {
	fmt.Println()
	fmt.Println("Scaling: median wall time (speed-up over the first column); kernels: the slowest device's, plus the top where the work has one (speed-up); per device: each device's kernel time per call")
	head := "| work |"
	sep := "|---|"
	for _, k := range t.counts {
		head += fmt.Sprintf(" %d device(s) |", k)
		sep += "---|"
	}
	fmt.Println(head)
	fmt.Println(sep)
	for _, name := range t.order {
		row := t.rows[name]
		base, haveBase := row[t.counts[0]]
		line := "| " + name + " |"
		for _, k := range t.counts {
			c, ok := row[k]
			if !ok {
				line += " |"
				continue
			}
			line += " " + fmtMS(c.wall)
			if haveBase && k != t.counts[0] && c.wall > 0 {
				line += fmt.Sprintf(" (%.2fx)", float64(base.wall)/float64(c.wall))
			}
			if c.kernel > 0 {
				line += "; kernels " + fmtMS(c.kernel)
				if haveBase && k != t.counts[0] && base.kernel > 0 {
					line += fmt.Sprintf(" (%.2fx)", float64(base.kernel)/float64(c.kernel))
				}
			}
			if len(c.perDevice) > 1 {
				parts := make([]string, len(c.perDevice))
				for i, d := range c.perDevice {
					parts[i] = fmt.Sprintf("%.2f", ms(d))
				}
				line += "; per device [" + strings.Join(parts, " ") + "] ms"
			}
			if c.note != "" {
				line += "; " + c.note
			}
			line += " |"
		}
		fmt.Println(line)
	}
}

func fmtMS(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.3f ms", ms(d))
	}
	return fmt.Sprintf("%.1f ms", ms(d))
}

// runOn times call on g as measurer.run does (one untimed call, then
// reps, printing the trace's phases per call), after warming g's GPUs
// (Group.Warm) between the untimed call and the timed ones, and returns
// the median wall time and each device's kernel time per call.
func runOn(m measurer, g *sched.Group, warm time.Duration, name string, call func() error) (time.Duration, []time.Duration, error) {
	if err := call(); err != nil {
		return 0, nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := g.Warm(warm); err != nil {
		return 0, nil, err
	}
	before, kt := phases(), g.KernelTimes()
	times, err := m.times(call)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", name, err)
	}
	per := g.KernelTimes()
	for i := range per {
		per[i] = (per[i] - kt[i]) / time.Duration(m.reps)
	}
	fmt.Printf("%s: median %.2f ms, min %.2f ms\n", name, ms(times[len(times)/2]), ms(times[0]))
	for _, r := range trace.Rows() {
		if c := r.Count - before[r.Phase].Count; c > 0 {
			fmt.Printf("    %-44s %5d per call %9.2f ms per call\n", r.Phase, c/m.reps, ms(r.Total-before[r.Phase].Total)/float64(m.reps))
		}
	}
	return times[len(times)/2], per, nil
}

// scaling measures the several-GPU targets on the first k members of the
// Group opts opens, for each k of cfg.counts, and prints them side by
// side; with cfg.commitOnly the commitments alone.
func scaling(opts wgpu.Options, cfg scaleConfig) error {
	trace.Enable(true) // runOn prints each call's phases
	g, err := openGroup(opts)
	if err != nil {
		return err
	}
	defer g.Close()
	all := g.Contexts()
	if cfg.same > 0 {
		// A smoke run of the splits where one adapter is all there is:
		// its first device, a member several times.
		all = slices.Repeat(all[:1], cfg.same)
		fmt.Printf("a Group of %d members on device 0\n", cfg.same)
	}
	counts, err := groupCounts(cfg.counts, len(all))
	if err != nil {
		return err
	}
	table := &scaleTable{counts: counts}
	hostBound(cfg.memcpy)
	// Every device's set-up (its kernels, its staging) once, all at once,
	// before anything is timed.
	whole, err := sched.NewGroup(all...)
	if err != nil {
		return err
	}
	if err := whole.Warm(cfg.warm); err != nil {
		return err
	}
	pattern := make([]byte, min(256<<20, max(cfg.resident, 1<<20)))
	for i := range pattern {
		pattern[i] = byte(i*131 + i>>13)
	}
	pairData := make([][8]uint64, cfg.pairs)
	for i := range pairData {
		pairData[i] = [8]uint64{uint64(i), uint64(i) * 3, 7, 11, 13, 17, 19, uint64(i) ^ 0xabc}
	}
	dst := make([][4]uint64, cfg.pairs)
	leafData := make([][32]byte, cfg.leaves)
	for i := range leafData {
		leafData[i][0], leafData[i][1], leafData[i][2] = byte(i), byte(i>>8), byte(i>>16)
	}
	host := make([]byte, cfg.upload)
	commits := newCommitScaling(cfg.commitRows, cfg.reps, cfg.warm, table)
	var firstHash []byte
	var firstMerges [][4]uint64
	var firstRoot [32]byte
	for _, k := range counts {
		sub, err := sched.NewGroup(all[:k]...)
		if err != nil {
			return err
		}
		fmt.Printf("\n== %d device(s)\n", k)
		if err := commits.run(sub, k); err != nil {
			return err
		}
		if cfg.commitOnly {
			continue
		}
		c, sum, err := residentBLAKE3(sub, k, cfg, pattern)
		if err != nil {
			return err
		}
		if firstHash == nil {
			firstHash = sum
		} else if !bytes.Equal(sum, firstHash) {
			return fmt.Errorf("blake3 resident on %d devices: %x, on %d %x", k, sum, counts[0], firstHash)
		}
		table.add(fmt.Sprintf("BLAKE3 %s resident, kernels", byteSize(cfg.resident)), k, c)

		// Rescue merges and a Rescue Merkle tree, from host memory.
		m := measurer{reps: cfg.reps}
		var t wgpu.Timing
		wall, per, err := runOn(m, sub, cfg.warm, fmt.Sprintf("rescue.Batch.MergeMany %d pairs on %d device(s)", cfg.pairs, k), func() error {
			return rescue.Batch.MergeMany(sub, dst, pairData, batch.Options{Timing: &t})
		})
		if err != nil {
			return err
		}
		if firstMerges == nil {
			firstMerges = slices.Clone(dst)
		} else if !slices.Equal(dst, firstMerges) {
			return fmt.Errorf("rescue.Batch.MergeMany on %d devices differs from %d", k, counts[0])
		}
		table.add(fmt.Sprintf("Rescue MergeManyOn 2^%d, end to end", log2(cfg.pairs)), k, cell{wall: wall, kernel: t.Elapsed(), perDevice: per})
		var root [32]byte
		wall, per, err = runOn(m, sub, cfg.warm, fmt.Sprintf("merkle.Root %d Rescue leaves on %d device(s)", cfg.leaves, k), func() error {
			var err error
			root, err = merkle.Root(sub, leafData, rescue.MerkleMerge{}, merkle.Options{Timing: &t})
			return err
		})
		if err != nil {
			return err
		}
		if k == counts[0] {
			firstRoot = root
		} else if root != firstRoot {
			return fmt.Errorf("merkle.Root on %d devices: %x, on %d %x", k, root, counts[0], firstRoot)
		}
		table.add(fmt.Sprintf("Rescue RootOn 2^%d, end to end", log2(cfg.leaves)), k, cell{wall: wall, kernel: t.Elapsed(), perDevice: per})

		// The host's transfer bound: the same bytes up to each device at
		// once, into buffers made beforehand.
		up := make([]*wgpu.Buffer, k)
		err = sub.Setup(func(i int, ctx *wgpu.Context) error {
			var err error
			up[i], err = ctx.NewBuffer("upload", uint64(cfg.upload))
			return err
		})
		if err == nil {
			wall, _, err = runOn(m, sub, 0, fmt.Sprintf("%s to each of %d device(s) at once", byteSize(uint64(cfg.upload)), k), func() error {
				return sub.Setup(func(i int, ctx *wgpu.Context) error {
					if err := ctx.Upload(up[i], 0, host); err != nil {
						return err
					}
					return ctx.Wait()
				})
			})
		}
		for _, b := range up {
			if b != nil {
				b.Release()
			}
		}
		if err != nil {
			return err
		}
		table.add(fmt.Sprintf("upload, %s to each device at once", byteSize(uint64(cfg.upload))), k,
			cell{wall: wall, note: fmt.Sprintf("%.1f GB/s in all", float64(k)*float64(cfg.upload)/wall.Seconds()/1e9)})
	}
	if len(counts) > 1 {
		commits.report(counts[0], counts[len(counts)-1])
	}
	table.print()
	if len(all) > 1 && !cfg.commitOnly {
		whole, err := sched.NewGroup(all...)
		if err != nil {
			return err
		}
		return commits.floor(whole)
	}
	return nil
}

// residentBLAKE3 hashes cfg.resident bytes resident on the k members of
// sub, uploaded untimed, and merges the shares' pieces on the host
// (Combine). It returns the kernel time (the slowest device), each
// device's and the median wall time, and the hash.
//
// The shares are what makes a split scale: each device's is contiguous
// and made of whole aligned blocks of a power of two of chunks
// (residentShares), so that it hashes as a few large subtrees, and the
// devices' shares differ by one block at most. A share cut at any chunk
// (blake3.Part into k parts, for k not a power of two) starts at an odd
// chunk and hashes as a ladder of small subtrees, each with its own
// dispatches.
func residentBLAKE3(sub *sched.Group, k int, cfg scaleConfig, pattern []byte) (cell, []byte, error) {
	resident := cfg.resident
	shares := residentShares(resident, k)
	type buffer struct {
		member int
		off, n uint64
		buf    *wgpu.Buffer
	}
	var bufs []*buffer
	for i, sh := range shares {
		for _, p := range sh {
			bufs = append(bufs, &buffer{member: i, off: p[0], n: p[1]})
		}
	}
	engines := make([]*blake3.Engine, k)
	times := make([]wgpu.Timing, k)
	defer func() {
		for _, e := range engines {
			if e != nil {
				e.Release()
			}
		}
		for _, b := range bufs {
			if b.buf != nil {
				b.buf.Release()
			}
		}
	}()
	err := sub.Setup(func(i int, ctx *wgpu.Context) error {
		var err error
		if engines[i], err = blake3.NewEngine(ctx, blake3.Options{Timing: &times[i]}); err != nil {
			return err
		}
		for _, b := range bufs {
			if b.member != i {
				continue
			}
			if b.buf, err = ctx.NewBuffer("resident", max((b.n+15)&^15, 16)); err != nil {
				return err
			}
			// Byte x of the input is pattern[x mod len(pattern)],
			// whatever the split.
			for at := uint64(0); at < b.n; {
				pos := (b.off + at) % uint64(len(pattern))
				chunk := min(uint64(len(pattern))-pos, b.n-at)
				if err := ctx.Upload(b.buf, at, pattern[pos:pos+chunk]); err != nil {
					return err
				}
				at += chunk
			}
		}
		return ctx.Wait()
	})
	if err != nil {
		return cell{}, nil, fmt.Errorf("blake3 resident on %d devices: %w", k, err)
	}
	per := len(bufs) / k
	// hash hashes the resident input once on every member.
	memberTime := make([]wgpu.Timing, k)
	hash := func() ([]byte, time.Duration, error) {
		pieces := make([][]blake3.Piece, len(bufs))
		clear(memberTime)
		start := time.Now()
		err := sub.Setup(func(i int, ctx *wgpu.Context) error {
			for j, b := range bufs {
				if b.member != i {
					continue
				}
				var err error
				if pieces[j], err = engines[i].SumPiecesBuffer(b.buf, resident, b.off, b.n); err != nil {
					return err
				}
				memberTime[i] = memberTime[i].Add(times[i])
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		sum, err := blake3.Combine(slices.Concat(pieces...), blake3.Options{})
		return sum, time.Since(start), err
	}
	// Two untimed calls (each device's kernels and scratch made), then
	// the GPUs warmed: the uploads left them idle.
	for range 2 {
		if _, _, err := hash(); err != nil {
			return cell{}, nil, err
		}
	}
	if err := sub.Warm(cfg.warm); err != nil {
		return cell{}, nil, err
	}
	var walls []time.Duration
	var kernel time.Duration
	perDevice := make([]time.Duration, k)
	var sum []byte
	for range cfg.reps {
		var wall time.Duration
		var err error
		if sum, wall, err = hash(); err != nil {
			return cell{}, nil, err
		}
		walls = append(walls, wall)
		var t wgpu.Timing
		for i, x := range memberTime {
			t = t.Parallel(x)
			perDevice[i] += x.Elapsed() / time.Duration(cfg.reps)
		}
		kernel += t.Elapsed() / time.Duration(cfg.reps)
	}
	slices.Sort(walls)
	c := cell{wall: walls[len(walls)/2], kernel: kernel, perDevice: perDevice,
		note: fmt.Sprintf("%.0f GB/s", float64(resident)/kernel.Seconds()/1e9)}
	fmt.Printf("BLAKE3 %d bytes resident on %d device(s), about %d buffer(s) a device: kernels %.3f ms (%s, slowest device), per device %v, wall %.3f ms median\n",
		resident, k, per, ms(kernel), c.note, perDevice, ms(c.wall))
	return c, sum, nil
}

// residentBlock is the smallest block of residentShares, in chunks: a
// subtree of 1 MiB still fills a large GPU's first levels.
const residentBlock = 1 << 10

// mostResident is the largest resident buffer: an H100 refused one of
// 8 GiB through wgpu, "not enough memory left", below its maxBufferSize.
const mostResident = 2 << 30

// residentShares splits a total-byte input into k devices' shares, each a
// list of buffers {offset, length}: contiguous shares of whole blocks of
// a power of two of chunks (about eight blocks a device, at least
// residentBlock chunks), the numbers of blocks as even as they go, each share cut into buffers of at most mostResident
// bytes at block boundaries. Every buffer but the input's last is whole
// blocks, so it hashes as subtrees of at least a block.
func residentShares(total uint64, k int) [][][2]uint64 {
	chunks := (total + blake3.ChunkSize - 1) / blake3.ChunkSize
	block := wgpu.PowerOfTwoBelow(max(chunks/uint64(8*k), 1))
	block = max(block, min(residentBlock, wgpu.PowerOfTwoBelow(max(chunks, 1))))
	blockBytes := block * blake3.ChunkSize
	blocks := int((total + blockBytes - 1) / blockBytes)
	step := max(mostResident/blockBytes, 1) * blockBytes
	shares := make([][][2]uint64, k)
	for i := range k {
		lo := min(uint64(blocks*i/k)*blockBytes, total)
		hi := min(uint64(blocks*(i+1)/k)*blockBytes, total)
		for at := lo; at < hi; at += step {
			shares[i] = append(shares[i], [2]uint64{at, min(step, hi-at)})
		}
	}
	return shares
}

// hostBound prints the host's own copy rate, the bound on filling staging
// memory: n bytes copied between two buffers of host memory by 1, 16 and
// every core's goroutines at once, and the host's NUMA nodes, where the
// GPUs are attached to them (sysfs). The library places no memory or
// thread by node: on a host of several, a device's staging fills run on
// whatever cores the scheduler gives.
func hostBound(n int) {
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // every page touched
	fmt.Printf("host: %d CPUs, GOMAXPROCS %d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	for _, workers := range slices.Compact([]int{1, min(16, runtime.GOMAXPROCS(0)), runtime.GOMAXPROCS(0)}) {
		best := time.Duration(1<<63 - 1)
		for range 3 {
			start := time.Now()
			var wg sync.WaitGroup
			step := (n/workers + 63) &^ 63
			for lo := 0; lo < n; lo += step {
				wg.Add(1)
				go func() {
					defer wg.Done()
					copy(dst[lo:min(lo+step, n)], src[lo:])
				}()
			}
			wg.Wait()
			best = min(best, time.Since(start))
		}
		fmt.Printf("host memcpy, %s by %d goroutine(s): %.1f GB/s\n", byteSize(uint64(n)), workers, float64(n)/best.Seconds()/1e9)
	}
	nodes, _ := filepath.Glob("/sys/devices/system/node/node[0-9]*")
	fmt.Printf("host NUMA nodes: %d", len(nodes))
	for _, node := range nodes {
		cpus, _ := os.ReadFile(filepath.Join(node, "cpulist"))
		fmt.Printf("; %s cpus %s", filepath.Base(node), strings.TrimSpace(string(cpus)))
	}
	fmt.Println()
	// Display and 3D controllers (PCI class 0x03xxxx) and their nodes.
	devs, _ := filepath.Glob("/sys/bus/pci/devices/*")
	for _, d := range devs {
		class, err := os.ReadFile(filepath.Join(d, "class"))
		if err != nil || !strings.HasPrefix(string(class), "0x03") {
			continue
		}
		node, _ := os.ReadFile(filepath.Join(d, "numa_node"))
		vendor, _ := os.ReadFile(filepath.Join(d, "vendor"))
		fmt.Printf("host GPU %s (vendor %s): NUMA node %s\n", filepath.Base(d), strings.TrimSpace(string(vendor)), strings.TrimSpace(string(node)))
	}
}

// byteSize writes n in GiB, MiB or KiB where it is a whole number of
// them, else in bytes.
func byteSize(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// log2 is n's base-2 logarithm, rounded down.
func log2(n int) int { return len(strconv.FormatUint(uint64(max(n, 1)), 2)) - 1 }
