// Package procstart records when the process started, as early as Go lets
// a program see it: this package depends on nothing but time, so its
// variable is set right after the runtime and time have started, before
// any package that depends on more is initialised. The runtime's own start
// before it (about 1 ms) is not seen.
package procstart

import "time"

// Time is when the process started (see the package comment).
var Time = time.Now()
