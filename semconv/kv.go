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
	actLFType
	actGKType
	actGKSub
	actIn   // + rank
	actOut  = actIn + 6
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
	{LFObservationType, actLFType}, {GenkitType, actGKType}, {GenkitSubtype, actGKSub},
	{RequestModel, actModel}, {ResponseModel, actModel},
	{UsageInputTokens, actIn}, {UsagePromptTokens, actIn + 1}, {OITokensPrompt, actIn + 2},
	{AIUsageInputTokens, actIn + 3}, {AIUsagePromptTokens, actIn + 4}, {AIUsageTokens, actIn + 5},
	{UsageOutputTokens, actOut}, {UsageCompletionTokens, actOut + 1}, {OITokensCompletion, actOut + 2},
	{AIUsageOutputTokens, actOut + 3}, {AIUsageCompletion, actOut + 4},
	{ConversationID, actConv}, {OISessionID, actConv + 1}, {AITelemetrySessionID, actConv + 2}, {LFSessionID, actConv + 3},
}

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
	var (
		opKind                    Kind // the kind the operation name decides, if decided
		decided                   bool
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
				opKind, decided = operationKind(in.op)
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
		case act == actLFType:
			if in.lfType == "" && isStr {
				in.lfType = kv.Value.AsString()
			}
		case act == actGKType:
			if in.gkType == "" && isStr {
				in.gkType = kv.Value.AsString()
			}
		case act == actGKSub:
			if in.gkSubtype == "" && isStr {
				in.gkSubtype = kv.Value.AsString()
			}
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
		if early && decided && (opKind != Inference || inRank == 0 && outRank == 0) {
			break
		}
	}
	if decided {
		f.Kind = opKind // what classifyFacts would find first
	} else {
		f.Kind, _ = classifyFacts(name, in)
	}
	return f
}
