package sched_test

import (
	"log"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Every GPU of the machine at once; compiled, not run, as ExampleOpen.
func ExampleOpenGroup() {
	g, err := sched.OpenGroup(wgpu.Options{}) // Devices: "all" (default), "2", "0,1"
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
}
