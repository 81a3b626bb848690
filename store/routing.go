package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// group is the records of one artifact in one Write.
type group struct {
	key  Key
	recs []artifact.Record
}

func (s *Store) convOf(tid pcommon.TraceID) (string, bool) {
	sh := s.shardOfTrace(tid)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c, ok := sh.convOf[tid]
	return c, ok
}

// routing is a Write's scratch, kept for the next one: its groups, where
// each starts in the batch, and their errors. With one artifact per trace a
// batch of 100 traces made all three afresh, doubling as they grew: about
// a tenth of what the store allocated per trace.
type routing struct {
	groups []group
	starts []int32
	errs   []error
	idx    map[Key]int // each group's index, once there are two
}

var routings = sync.Pool{New: func() any { return new(routing) }}

// maxPooledGroups caps the groups a pooled routing keeps room for, so that
// one huge batch does not pin its worth of memory.
const maxPooledGroups = 4096

// errors returns n nil errors.
func (rt *routing) errors(n int) []error {
	if cap(rt.errs) < n {
		rt.errs = make([]error, n)
	}
	rt.errs = rt.errs[:n]
	return rt.errs
}

// release returns rt to the pool, holding nothing of the batch.
func (rt *routing) release() {
	if cap(rt.groups) > maxPooledGroups || cap(rt.errs) > maxPooledGroups || len(rt.idx) > maxPooledGroups {
		return
	}
	clear(rt.groups)
	clear(rt.errs)
	clear(rt.idx)
	rt.groups, rt.starts, rt.errs = rt.groups[:0], rt.starts[:0], rt.errs[:0]
	routings.Put(rt)
}

// route groups recs by artifact, in order of first appearance, into rt.
func (s *Store) route(rt *routing, recs []artifact.Record) ([]group, error) {
	if s.run != nil {
		rt.groups = append(rt.groups[:0], group{key: Key{Kind: KindRun}, recs: recs})
		return rt.groups, nil
	}
	var convs map[pcommon.TraceID]string
	if s.opts.Route == ByConversation {
		var err error
		if convs, err = s.conversations(recs); err != nil {
			return nil, err
		}
	}
	return rt.group(recs, s.opts.Route, s.opts.Attribute, convs), nil
}

// groupRecords groups recs by artifact (see routing.group).
func groupRecords(recs []artifact.Record, route Route, attr string, convs map[pcommon.TraceID]string) []group {
	return new(routing).group(recs, route, attr, convs)
}

// group groups recs by artifact, in order of first appearance, into
// rt.groups.
// Neighbours mostly share an artifact (a trace's spans, a resource's), so
// a record whose resource (by attribute) or trace (otherwise) is its
// predecessor's joins its group without computing its key. While every
// group is one run of recs (a batch in trace order, the usual case, and a
// batch of one artifact), the groups are slices of recs, not a copy; only
// a batch that comes back to an earlier group is copied, each group a run
// of one copy.
func (rt *routing) group(recs []artifact.Record, route Route, attr string, convs map[pcommon.TraceID]string) []group {
	groups := rt.groups[:0]
	starts := rt.starts[:0] // while runs: where each group starts in recs
	defer func() { rt.groups, rt.starts = groups, starts }()
	idx := rt.idx  // empty; nil until a Write has two groups
	var of []int32 // each record's group, once a group comes back
	j := -1
	for i := range recs {
		rec := &recs[i]
		if i == 0 || !sameArtifact(&recs[i-1], rec, route, groups[j].key.Kind) {
			k := keyOf(rec, route, attr, convs)
			switch {
			case j >= 0 && groups[j].key == k:
			case len(groups) == 0:
				groups = append(groups, group{key: k})
				starts = append(starts, 0)
				j = 0
			default:
				if len(idx) == 0 {
					if idx == nil {
						idx = make(map[Key]int, 8)
						rt.idx = idx
					}
					idx[groups[0].key] = 0
				}
				var ok bool
				if j, ok = idx[k]; !ok {
					j = len(groups)
					idx[k] = j
					groups = append(groups, group{key: k})
					starts = append(starts, int32(i))
				} else if of == nil {
					// recs[:i] are runs of the groups so far.
					of = make([]int32, len(recs))
					for g := range starts {
						end := int32(i)
						if g+1 < len(starts) {
							end = starts[g+1]
						}
						for x := starts[g]; x < end; x++ {
							of[x] = int32(g)
						}
					}
				}
			}
		}
		if of != nil {
			of[i] = int32(j)
		}
	}
	if of == nil {
		for g := range groups {
			end := len(recs)
			if g+1 < len(starts) {
				end = int(starts[g+1])
			}
			groups[g].recs = recs[starts[g]:end:end]
		}
		return groups
	}
	// Each group a run of one copy of recs, in order.
	end := make([]int, len(groups))
	for _, g := range of {
		end[g]++
	}
	n := 0
	for g := range end {
		n += end[g]
		end[g] = n - end[g] // its start, for now
	}
	out := make([]artifact.Record, len(recs))
	for i, g := range of {
		out[end[g]] = recs[i]
		end[g]++
	}
	start := 0
	for g := range groups {
		groups[g].recs = out[start:end[g]:end[g]]
		start = end[g]
	}
	return groups
}

// sameArtifact reports whether b surely goes where a, of an artifact of
// kind, goes, when that is cheap to tell: the same resource (by attribute,
// when it has the attribute), the same trace (by trace or conversation,
// which maps a trace to one conversation; by attribute with the same
// resource).
func sameArtifact(a, b *artifact.Record, route Route, kind Kind) bool {
	if route == ByAttribute && kind == KindAttribute && a.Resource == b.Resource {
		return true
	}
	return a.Span.TraceID() == b.Span.TraceID() && (route != ByAttribute || a.Resource == b.Resource)
}

// conversations returns the conversation of every trace of recs that has
// one: the one it was first seen to name, in an earlier Write or, first
// in recs, in this one. A trace that names its conversation only now, and
// whose earlier records went to an artifact of its own, has that artifact
// folded into its conversation's: one trace, one file.
func (s *Store) conversations(recs []artifact.Record) (map[pcommon.TraceID]string, error) {
	convs := make(map[pcommon.TraceID]string)
	var fresh []pcommon.TraceID
	var rd semconv.Reading
	checked := make(map[pcommon.TraceID]bool)
	for i := range recs {
		tid := recs[i].Span.TraceID()
		if _, ok := convs[tid]; ok {
			continue
		}
		if !checked[tid] {
			checked[tid] = true
			if c, ok := s.convOf(tid); ok {
				convs[tid] = c
				continue
			}
		}
		recs[i].Read(&rd)
		c := rd.Str(semconv.FieldConversationID)
		if c == "" {
			continue
		}
		sh := s.shardOfTrace(tid)
		sh.mu.Lock()
		if prev, ok := sh.convOf[tid]; ok {
			c = prev // another Write named it first
		} else {
			if sh.convOf == nil {
				sh.convOf = make(map[pcommon.TraceID]string)
			}
			sh.convOf[tid] = c
			fresh = append(fresh, tid)
		}
		sh.mu.Unlock()
		convs[tid] = c
	}
	var errs []error
	for _, tid := range fresh {
		if err := s.fold(tid, ConversationKey(convs[tid])); err != nil {
			errs = append(errs, err)
		}
	}
	return convs, errors.Join(errs...)
}

// fold moves the artifact trace tid wrote before it named its
// conversation into the conversation's artifact, and removes its file.
func (s *Store) fold(tid pcommon.TraceID, conv Key) error {
	tk := TraceKey(tid)
	path := s.pathOf(tk)
	ta := s.lookup(tk)
	if ta == nil {
		if _, err := os.Stat(path); err != nil {
			return nil // nothing written for it
		}
		ta = s.get(tk)
	}
	defer s.closeEvicted()
	ta.mu.Lock()
	defer ta.mu.Unlock()
	if ta.gone() {
		// Finalized meanwhile: its file is what remains.
		ta = newArtifact(tk, path)
	}
	if err := s.closeFile(ta); err != nil {
		return err
	}
	recs, meta, dropped, err := readArtifact(path)
	if err != nil {
		return fmt.Errorf("fold %s into %s: %w", path, conv, err)
	}
	if ta.meta != nil && meta != nil {
		// Records read back under the header get its resource and scope,
		// with the budget and redaction the header says put back in; the
		// header was made from the spans' own: give them back.
		for i := range recs {
			if recs[i].Resource.Attributes().Equal(meta.Resource.Attributes()) {
				recs[i].Resource = ta.meta.Resource
			}
		}
	}
	if dropped > 0 {
		s.drops.add(tid, dropped, dropUsage{})
	}
	if len(recs) > 0 {
		if err := s.writeGroup(conv, recs, prepare{}, false); err != nil {
			return fmt.Errorf("fold %s into %s: %w", path, conv, err)
		}
	}
	if err := s.foldLogs(path, conv); err != nil {
		return fmt.Errorf("fold %s into %s: %w", path, conv, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("fold %s into %s: %w", path, conv, err)
	}
	if s.opts.TrackPaths {
		s.pathsMu.Lock()
		s.paths.Remove(path)
		s.pathsMu.Unlock()
	}
	ta.to(stGone)
	s.forget(ta)
	return nil
}

// readArtifact reads the records of the artifact at path, its header and
// the drops its last trailer counted; nothing when there is no file.
func readArtifact(path string) ([]artifact.Record, *artifact.Meta, int64, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, 0, nil
	}
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	r := artifact.NewReader(f, artifact.WithSource(path))
	var recs []artifact.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, 0, err
		}
		recs = append(recs, *rec)
	}
	var dropped int64
	if sum := r.Summary(); sum != nil {
		dropped = sum.Dropped
	}
	return recs, r.Meta(), dropped, nil
}
