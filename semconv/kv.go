package semconv

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/agenttrace/agenttrace/semconv/internal/dialect"
)

// Facts is the little a live budget needs from a span as it ends: its
// kind, its token usage and its conversation.
type Facts struct {
	Kind         Kind
	Usage        Usage // Input and Output only
	Conversation string
}

// kvAction is what ReadKV does with a key: a role in the high byte
// (dialect.Act*), a rank or a rule slot in the low one. kvlookup.go,
// generated from the dialect table, gives it for the embedded keys.
type kvAction uint16

const (
	actNone  = kvAction(dialect.ActNone)
	actOp    = kvAction(dialect.ActOp)
	actModel = kvAction(dialect.ActModel)
	actUsage = kvAction(dialect.ActUsage)
	actMsg   = kvAction(dialect.ActMsg)
	actClass = kvAction(dialect.ActClass) // + the rule key's slot
	actIn    = kvAction(dialect.ActIn)    // + rank
	actOut   = kvAction(dialect.ActOut)   // + rank
	actConv  = kvAction(dialect.ActConv)  // + rank
	roleMask = kvAction(dialect.RoleMask)
)

// ReadKV reads Facts from an OTel Go SDK span's name and attributes, with
// the same rules as [Read] (TestReadKVAgreesWithRead holds them together),
// in one pass that neither allocates nor hashes: it runs on the
// agent's goroutine for every span that ends.
func ReadKV(name string, attrs []attribute.KeyValue) Facts { return readKV(name, attrs, false) }

// ReadUsageKV is ReadKV for a caller that needs only Kind, and Usage of
// inference spans (a budget): it stops reading as soon as they are settled (the operation name decides
// the kind, and the canonical usage keys outrank every other), which is
// after the first attribute for most tool and agent spans.
func ReadUsageKV(name string, attrs []attribute.KeyValue) Facts { return readKV(name, attrs, true) }

func readKV(name string, attrs []attribute.KeyValue, early bool) Facts {
	t := active.Load()
	var (
		opKind                    Kind // the kind the operation name decides, if decided
		decided                   bool
		haveOp                    bool
		cls                       [maxClass]uint16 // per rule slot, the index + 1 of the first attribute with its key
		ev                        evidence
		inRank, outRank, convRank = kvAction(999), kvAction(999), kvAction(999)
		f                         Facts
	)
	for i := range attrs {
		kv := &attrs[i]
		act := kvLookup(string(kv.Key))
		if act == actNone {
			if t.kv == nil {
				continue
			}
			if act = t.kv[string(kv.Key)]; act == actNone {
				continue
			}
		}
		isStr := kv.Value.Type() == attribute.STRING
		switch act & roleMask {
		case actClass:
			// Kept as an index (a small array to clear), read only when
			// the operation name decides nothing.
			if c := &cls[act-actClass]; *c == 0 && i < 1<<16-1 {
				*c = uint16(i + 1)
			}
		case actIn:
			ev |= evUsage
			if r := act - actIn; r < inRank && kv.Value.Type() == attribute.INT64 {
				inRank, f.Usage.Input = r, kv.Value.AsInt64()
			}
		case actOut:
			ev |= evUsage
			if r := act - actOut; r < outRank && kv.Value.Type() == attribute.INT64 {
				outRank, f.Usage.Output = r, kv.Value.AsInt64()
			}
		case actConv:
			if r := act - actConv; r < convRank && isStr {
				convRank, f.Conversation = r, kv.Value.AsString()
			}
		default:
			switch act {
			case actOp:
				// The first attribute with the key, as Read's walk keeps.
				if !haveOp {
					haveOp = true
					if isStr {
						opKind, decided = operationKind(kv.Value.AsString())
					}
				}
			case actModel:
				ev |= evModel
			case actUsage:
				ev |= evUsage
			case actMsg:
				ev |= evMsg
			}
		}
		if early && decided && (opKind != Inference || inRank == 0 && outRank == 0) {
			break
		}
	}
	if decided {
		f.Kind = opKind // what Read's classify finds first
		return f
	}
	var vals classVals
	for slot, c := range cls[:len(t.classIDs)] {
		if c != 0 {
			vals[slot].ok = true
			if v := attrs[c-1].Value; v.Type() == attribute.STRING {
				vals[slot].s = v.AsString()
			}
		}
	}
	var d Dialect
	var why int16
	f.Kind, d, why = t.decide(name, &vals, ev)
	if d == DialectNone && kvBodyEvidence(attrs) {
		f.Kind = Inference
	}
	if partOfCall(f.Kind, why, ev) && !kvOwn(t, attrs) && !kvBodyEvidence(attrs) {
		f.Kind = Span // as Read's classify decides
	}
	return f
}

// kvOwn is tables.sentInput of SDK key-values: asked only of a span
// partOfCall doubts, so the key actions kvLookup gives (which do not tell
// input from output messages, nor say a conditional source) need not say.
func kvOwn(t *tables, attrs []attribute.KeyValue) bool {
	for i := range attrs {
		if t.sentKey(string(attrs[i].Key)) {
			return true
		}
	}
	return false
}

// kvBodyEvidence is bodyEvidence of SDK key-values.
func kvBodyEvidence(attrs []attribute.KeyValue) bool {
	for i := range attrs {
		if attrs[i].Value.Type() == attribute.STRING && providerBody(attrs[i].Value.AsString()) {
			return true
		}
	}
	return false
}
