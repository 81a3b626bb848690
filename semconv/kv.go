package semconv

import "go.opentelemetry.io/otel/attribute"

// Facts is the little a live budget needs from a span as it ends: its
// kind, its token usage and its conversation.
type Facts struct {
	Kind         Kind
	Usage        Usage // Input and Output only
	Conversation string
}

// kvAction is what ReadKV does with a key.
type kvAction uint8

const (
	actNone kvAction = iota
	actOp
	actOIKind
	actTLKind
	actAIOp
	actTLReq
	actTool
	actSystem
	actModel
	actIn   // + rank
	actOut  = actIn + 5
	actConv = actOut + 5
)

// kvKeys are the keys ReadKV looks at, with what it does with each; the
// token and conversation keys in the priority order of the dialect table.
var kvKeys = []struct {
	key string
	act kvAction
}{
	{OperationName, actOp}, {OISpanKind, actOIKind}, {TLSpanKind, actTLKind}, {AIOperationID, actAIOp},
	{TLRequestType, actTLReq}, {ToolName, actTool}, {System, actSystem},
	{RequestModel, actModel}, {ResponseModel, actModel},
	{UsageInputTokens, actIn}, {UsagePromptTokens, actIn + 1}, {OITokensPrompt, actIn + 2},
	{AIUsageInputTokens, actIn + 3}, {AIUsagePromptTokens, actIn + 4},
	{UsageOutputTokens, actOut}, {UsageCompletionTokens, actOut + 1}, {OITokensCompletion, actOut + 2},
	{AIUsageOutputTokens, actOut + 3}, {AIUsageCompletion, actOut + 4},
	{ConversationID, actConv}, {OISessionID, actConv + 1}, {AITelemetrySessionID, actConv + 2},
}

// kvTable finds a key's action with one hash of three bytes and the length
// and, almost always, one string compare: cheaper than a map or a switch of
// two dozen strings, on a path that runs for every attribute of every span.
var kvTable = func() (t [256][2]uint8) {
	for i, k := range kvKeys {
		h := kvHash(k.key)
		switch {
		case t[h][0] == 0:
			t[h][0] = uint8(i + 1)
		case t[h][1] == 0:
			t[h][1] = uint8(i + 1)
		default:
			panic("semconv: kvTable bucket overflow; change kvHash")
		}
	}
	return t
}()

func kvHash(k string) uint8 {
	n := len(k)
	return uint8(n*7 + int(k[n-1])*3 + int(k[n/2])*5 + int(k[n-3]))
}

func kvLookup(k string) kvAction {
	if len(k) < 10 {
		return actNone
	}
	for _, e := range kvTable[kvHash(k)] {
		if e != 0 && kvKeys[e-1].key == k {
			return kvKeys[e-1].act
		}
	}
	return actNone
}

// ReadKV reads Facts from an OTel Go SDK span's name and attributes, with
// the same rules as [Read] (TestReadKVAgreesWithRead holds them together),
// in one pass that neither allocates nor hashes a whole key: it runs on the
// agent's goroutine for every span that ends.
func ReadKV(name string, attrs []attribute.KeyValue) Facts {
	var (
		in                        classInputs
		inRank, outRank, convRank = kvAction(99), kvAction(99), kvAction(99)
		f                         Facts
	)
	for i := range attrs {
		kv := &attrs[i]
		act := kvLookup(string(kv.Key))
		if act == actNone {
			continue
		}
		isStr := kv.Value.Type() == attribute.STRING
		switch {
		case act == actOp:
			if in.op == "" && isStr {
				in.op = kv.Value.AsString()
			}
		case act == actOIKind:
			if !in.hasOIKind {
				in.hasOIKind = true
				if isStr {
					in.oiKind = kv.Value.AsString()
				}
			}
		case act == actTLKind:
			if in.tlKind == "" && isStr {
				in.tlKind = kv.Value.AsString()
			}
		case act == actAIOp:
			if in.aiOp == "" && isStr {
				in.aiOp = kv.Value.AsString()
			}
		case act == actTLReq:
			if in.tlReq == "" && isStr {
				in.tlReq = kv.Value.AsString()
			}
		case act == actTool:
			in.hasTool = true
		case act == actSystem:
			in.hasSystem = true
		case act == actModel:
			in.hasModel = true
		case act < actOut:
			if r := act - actIn; r < inRank && kv.Value.Type() == attribute.INT64 {
				inRank, f.Usage.Input = r, kv.Value.AsInt64()
			}
		case act < actConv:
			if r := act - actOut; r < outRank && kv.Value.Type() == attribute.INT64 {
				outRank, f.Usage.Output = r, kv.Value.AsInt64()
			}
		default:
			if r := act - actConv; r < convRank && isStr {
				convRank, f.Conversation = r, kv.Value.AsString()
			}
		}
	}
	f.Kind, _ = classifyFacts(name, in)
	return f
}
