// Package tmpfs is test support for full-disk tests: it mounts a small
// tmpfs (root on Linux only; the test is skipped cleanly elsewhere), fills
// it with a ballast file that the test removes to free the space again,
// and reports the space left, so that the processor's and the collector's
// full-disk tests fill and free a disk the same way.
package tmpfs
