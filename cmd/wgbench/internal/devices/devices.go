package devices

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
)

// New returns the devices command.
func New(g *cli.Globals) *cobra.Command {
	var asJSON, tick bool
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the GPU adapters, the default choice first",
		Long: `devices lists the GPU adapters of --backend (every backend without it), the
default choice first. With --adapter it lists only the adapter that
--adapter chooses, the one the other commands would open, and fails if none
matches. Every column comes from the adapter, without opening a device,
but the timestamp period (TICK, nanoseconds per GPU timestamp tick), which
only a device's queue gives: --tick opens a device on each adapter with
timestamps for it.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			infos, err := listed(g)
			if err != nil {
				return err
			}
			if tick {
				tickPeriods(g, infos)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if infos == nil {
					infos = []wgpu.AdapterInfo{}
				}
				return enc.Encode(infos)
			}
			if len(infos) == 0 && g.GPU.CPU() {
				hashes := strings.Join(registry.Commands(), ", ")
				_, err := fmt.Fprintf(out, "The CPU backend has no adapters: b3sum, %s, merkle and eigen run their plain-Go code on %s instead.\n", hashes, cli.HostCPU())
				return err
			}
			if len(infos) == 0 {
				return wgpu.NoAdapterError(g.GPU.Backend)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			tickHead := ""
			if tick {
				tickHead = "\tTICK"
			}
			fmt.Fprintln(tw, "INDEX\tNAME\tBACKEND\tTYPE\tDRIVER\tTIMESTAMPS"+tickHead+"\tMAX BINDING\tMAX BUFFER\tWG STORAGE\tFEATURES")
			var notes []string
			for _, in := range infos {
				features := strings.Join(in.Features, ",")
				if features == "" {
					features = "-"
				}
				tickCell := ""
				if tick {
					tickCell = "\t-"
					if in.TimestampPeriod > 0 {
						tickCell = "\t" + strconv.FormatFloat(in.TimestampPeriod, 'g', 4, 64) + " ns"
					}
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%v%s\t%s\t%s\t%d KiB\t%s\n", in.Index, in.Name, in.Backend, in.Type, in.Driver,
					in.Timestamps, tickCell, bytesize.Format(in.Limits.MaxStorageBindingSize), bytesize.Format(in.Limits.MaxBufferSize), in.Limits.MaxWorkgroupStorage/1024, features)
				if in.Unusable != "" {
					notes = append(notes, fmt.Sprintf("adapter %d cannot run kernels: %s", in.Index, in.Unusable))
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, n := range notes {
				if _, err := fmt.Fprintln(out, n); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&tick, "tick", false, "open a device on each adapter with timestamps for its timestamp period (TICK; JSON timestamp_period_ns): 0.1 s or more a GPU")
	return cmd
}

// tickPeriods fills in the timestamp period of every adapter of infos
// that can run kernels and has timestamps. Every other column comes from
// the adapter, but the period is the queue's alone
// (wgpuQueueGetTimestampPeriod; webgpu.h's WGPUAdapterInfo and limits
// have no such field), so each such adapter opens a device: all at once,
// since each request waits on its own driver (tens of milliseconds on
// NVIDIA: bench/results/HISTORY.md, "Figures moved from code comments").
func tickPeriods(g *cli.Globals, infos []wgpu.AdapterInfo) {
	var wg sync.WaitGroup
	for i, in := range infos {
		if in.Unusable != "" || !in.Timestamps {
			continue
		}
		wg.Go(func() {
			ctx, err := wgpu.Open(wgpu.Options{Backend: g.GPU.Backend, Adapter: strconv.Itoa(in.Index), GLESMinor: g.GPU.GLESMinor})
			if err != nil {
				return // listed without a period; Open says why when used
			}
			infos[i].TimestampPeriod = ctx.Info().TimestampPeriod
			g.CloseContext(ctx)
		})
	}
	wg.Wait()
}

// listed returns the adapters devices lists: those of the backend the
// flags name, or with --adapter the one it chooses.
func listed(g *cli.Globals) ([]wgpu.AdapterInfo, error) {
	if err := g.GPUSpaceError(g.GPU); err != nil {
		return nil, err
	}
	if g.GPU.Adapter == "" || g.GPU.CPU() {
		return wgpu.Adapters(wgpu.Options{Backend: g.GPU.Backend, GLESMinor: g.GPU.GLESMinor})
	}
	info, err := wgpu.ChosenAdapter(wgpu.Options{Backend: g.GPU.Backend, Adapter: g.GPU.Adapter, GLESMinor: g.GPU.GLESMinor})
	if err != nil {
		return nil, err
	}
	return []wgpu.AdapterInfo{info}, nil
}
