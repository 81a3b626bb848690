package benchcpu

import (
	"runtime/metrics"
	"sync"
	"time"
)

// HeapPeak samples the bytes of live and not yet swept heap objects every
// millisecond (runtime/metrics: no stop of the world) until the returned
// function is called, which returns the most seen: the memory the work
// in between holds at its peak, not what it allocates over its life.
func HeapPeak() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}
