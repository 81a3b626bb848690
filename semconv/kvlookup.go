package semconv

// Code below is derived from kvKeys by hand-run generation; keep them in
// step (TestKVLookupMatchesTable checks).

// kvLookup returns what ReadKV does with key k. Switching on the length
// first leaves one to three equality tests against constants, which the
// compiler turns into a few word compares: the cheapest way to ask a
// per-attribute question on the path every span takes.
func kvLookup(k string) kvAction {
	switch len(k) {
	case 10:
		switch k {
		case OISessionID:
			return actConv + 1
		}
	case 11:
		switch k {
		case GenkitType:
			return actGKType
		}
	case 13:
		switch k {
		case System:
			return actSystem
		}
	case 14:
		switch k {
		case AIOperationID:
			return actAIOp
		}
	case 15:
		switch k {
		case AIUsageTokens:
			return actIn + 5
		}
	case 16:
		switch k {
		case TLRequestType:
			return actTLReq
		case ToolName:
			return actTool
		}
	case 19:
		switch k {
		case TLSpanKind:
			return actTLKind
		case LFSessionID:
			return actConv + 3
		}
	case 20:
		switch k {
		case RequestModel:
			return actModel
		case AIUsageInputTokens:
			return actIn + 3
		}
	case 21:
		switch k {
		case OperationName:
			return actOp
		case ResponseModel:
			return actModel
		case AIUsagePromptTokens:
			return actIn + 4
		case AIUsageOutputTokens:
			return actOut + 3
		}
	case 22:
		switch k {
		case OITokensPrompt:
			return actIn + 2
		case ConversationID:
			return actConv
		}
	case 23:
		switch k {
		case OISpanKind:
			return actOIKind
		case GenkitSubtype:
			return actGKSub
		}
	case 25:
		switch k {
		case LFObservationType:
			return actLFType
		case UsageInputTokens:
			return actIn
		case AIUsageCompletion:
			return actOut + 4
		}
	case 26:
		switch k {
		case UsagePromptTokens:
			return actIn + 1
		case UsageOutputTokens:
			return actOut
		case OITokensCompletion:
			return actOut + 2
		}
	case 30:
		switch k {
		case UsageCompletionTokens:
			return actOut + 1
		}
	case 31:
		switch k {
		case AITelemetrySessionID:
			return actConv + 2
		}
	}
	return actNone
}
