package store

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// Group is the records of one artifact.
type Group struct {
	Key     Key
	Records []artifact.Record
}

// Split groups a whole set of records the way a store routes them (a
// trace belongs to the conversation its first span naming one names), in
// order of first appearance: for writers of other formats that name their
// files by the same rule.
func Split(recs []artifact.Record, route Route, attr string) []Group {
	var convs map[pcommon.TraceID]string
	if route == ByConversation {
		convs = namedConversations(recs)
	}
	var out []Group
	idx := make(map[Key]int)
	for i := range recs {
		k := keyOf(&recs[i], route, attr, convs)
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, Group{Key: k})
		}
		out[j].Records = append(out[j].Records, recs[i])
	}
	return out
}

// keyOf is the key of rec's artifact, given the conversations of traces.
func keyOf(rec *artifact.Record, route Route, attr string, convs map[pcommon.TraceID]string) Key {
	tid := rec.Span.TraceID()
	switch route {
	case ByConversation:
		if c, ok := convs[tid]; ok {
			return ConversationKey(c)
		}
	case ByAttribute:
		if v, ok := rec.Resource.Attributes().Get(attr); ok {
			return AttributeKey(v.AsString())
		}
	}
	return TraceKey(tid)
}

// namedConversations is the conversation each trace of recs names: that
// of its first span naming one.
func namedConversations(recs []artifact.Record) map[pcommon.TraceID]string {
	convs := make(map[pcommon.TraceID]string)
	var rd semconv.Reading
	for i := range recs {
		tid := recs[i].Span.TraceID()
		if _, ok := convs[tid]; ok {
			continue
		}
		recs[i].Read(&rd)
		if c := rd.Str(semconv.FieldConversationID); c != "" {
			convs[tid] = c
		}
	}
	return convs
}
