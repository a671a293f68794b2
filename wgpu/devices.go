package wgpu

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file reads Options.Devices: the option parsing that Choose and
// Check share. Opening the devices as a Group is package sched's.

// WantsGroup reports whether o asks for several devices (Devices is
// set): a program then opens a Group (sched.OpenGroup) where it would
// open a Context. Choose makes the same decision.
func (o Options) WantsGroup() bool { return o.Devices != "" }

// deviceSpec is a parsed Options.Devices: every GPU (all), the first
// count of them, or the adapters of indices.
type deviceSpec struct {
	all     bool
	count   int
	indices []int
}

// parseDevices reads an Options.Devices value (see there) as far as
// it can be checked without the adapters; accepted says what it may be,
// for errors.
func parseDevices(spec, accepted string) (deviceSpec, error) {
	s := strings.TrimSpace(strings.ToLower(spec))
	switch {
	case s == "" || s == "all":
		return deviceSpec{all: true}, nil
	case !strings.Contains(s, ","):
		if n, err := strconv.Atoi(s); err == nil {
			if n < 1 {
				return deviceSpec{}, fmt.Errorf("wgpu: devices %q: a count must be at least 1; %s", spec, accepted)
			}
			return deviceSpec{count: n}, nil
		}
	}
	var d deviceSpec
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 {
			return deviceSpec{}, fmt.Errorf("wgpu: devices %q: %q is not an adapter index; %s", spec, f, accepted)
		}
		if slices.Contains(d.indices, i) {
			return deviceSpec{}, fmt.Errorf("wgpu: devices %q: adapter %d is named twice; %s", spec, i, accepted)
		}
		d.indices = append(d.indices, i)
	}
	return d, nil
}

// acceptedDevices is what parseDevices accepts, for errors where the
// adapters are not known.
const acceptedDevices = `accepted: "all", a count N, or distinct adapter indices separated by commas ("0,1")`

// pickDevices returns the adapter indices spec chooses among infos (see
// Options.Devices).
func pickDevices(spec string, infos []AdapterInfo) ([]int, error) {
	var gpus []int
	for _, info := range infos {
		if !info.Software() && info.Unusable == "" {
			gpus = append(gpus, info.Index)
		}
	}
	accepted := fmt.Sprintf(`accepted: "all", a count from 1 to %d, or distinct adapter indices from 0 to %d separated by commas ("0,1")`, max(len(gpus), 1), len(infos)-1)
	d, err := parseDevices(spec, accepted)
	switch {
	case err != nil:
		return nil, err
	case d.all:
		if len(gpus) == 0 {
			return []int{infos[0].Index}, nil
		}
		return gpus, nil
	case d.count > 0 && len(gpus) == 0:
		// Only software adapters: one device is the first of them, as
		// "all" is; more is not there.
		if d.count == 1 {
			return []int{infos[0].Index}, nil
		}
		return nil, fmt.Errorf("wgpu: devices %q: %d GPUs asked, but the %s backend has no GPU, only the software adapter %s; accepted: 1 or \"all\" for it, or adapter indices from 0 to %d separated by commas (\"0,1\")",
			spec, d.count, infos[0].Backend, infos[0].Name, len(infos)-1)
	case d.count > 0:
		if d.count > len(gpus) {
			return nil, fmt.Errorf("wgpu: devices %q: %d GPUs asked, %d found on the %s backend; %s", spec, d.count, len(gpus), infos[0].Backend, accepted)
		}
		return gpus[:d.count], nil
	}
	for _, i := range d.indices {
		if i >= len(infos) {
			return nil, fmt.Errorf("wgpu: devices %q: %q is not an adapter index; %s", spec, strconv.Itoa(i), accepted)
		}
	}
	return d.indices, nil
}

// Check returns the error Open or sched.OpenGroup would return for o's settings
// before they look at an adapter: an unknown backend, a malformed Devices
// (a count below 1, an index that is not a number, or one named twice), a
// field of a value it does not accept (Transfer: CheckTransferOptions). A program checks them with it up
// front, so that a command that opens no device refuses them as one that
// does; where an adapter index exists is known only once the adapters are
// listed, by Open.
func (o Options) Check() error {
	if err := o.check(); err != nil {
		return err
	}
	if !o.CPU() {
		if _, err := instanceBackends(o.Backend); err != nil {
			return err
		}
	}
	_, err := parseDevices(o.Devices, acceptedDevices)
	return err
}
