package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/redact"
)

// Kind says what an artifact holds, and so how its file is named.
type Kind uint8

const (
	// KindRun is the one artifact of a store that writes a single file or
	// writer: the whole run, whatever its traces.
	KindRun Kind = iota
	// KindTrace is one trace: <trace id>.jsonl.
	KindTrace
	// KindConversation is one gen_ai.conversation.id: conv-<name>.jsonl.
	KindConversation
	// KindAttribute is one value of a resource attribute:
	// <attribute name>-<value name>.jsonl.
	KindAttribute
)

// Key identifies an artifact of a store.
type Key struct {
	Kind  Kind
	Trace pcommon.TraceID // KindTrace
	Value string          // KindConversation, KindAttribute
}

// TraceKey is the key of a trace's artifact.
func TraceKey(tid pcommon.TraceID) Key { return Key{Kind: KindTrace, Trace: tid} }

// ConversationKey is the key of a conversation's artifact. Its Value, which
// becomes the file's name (FileName) and the header's conversation_id, is
// the id with any secret in it redacted (conversationValue).
func ConversationKey(conv string) Key {
	return Key{Kind: KindConversation, Value: conversationValue(conv)}
}

// conversationValue is conv as a conversation's artifact may show it: an id
// holding a secret (an agent that used an API key or a session token as
// its conversation id) would put that secret in a file name, which no
// redaction of the records reaches, whatever a writer's redaction settings.
// Such an id becomes 16 hex digits of the SHA-256 of the whole id, "~" and
// its redacted text, so that two conversations whose ids differ only in
// their secrets keep two artifacts. (The hash goes first: after a
// "token=[REDACTED]" it would read as the rest of a credential.) A clean id is kept as it is, and
// the result is clean, so a header's conversation_id read back on
// recovery gives the same key.
func conversationValue(conv string) string {
	red, ok := redact.SecretsIn(conv)
	if !ok {
		return conv
	}
	h := sha256.Sum256([]byte(conv))
	return hex.EncodeToString(h[:hashLen/2]) + "~" + red
}

// AttributeKey is the key of the artifact of one value of the resource
// attribute a store groups by.
func AttributeKey(value string) Key { return Key{Kind: KindAttribute, Value: value} }

// String names the key in messages.
func (k Key) String() string {
	switch k.Kind {
	case KindTrace:
		return "trace " + k.Trace.String()
	case KindConversation:
		return "conversation " + k.Value
	case KindAttribute:
		return "attribute value " + k.Value
	}
	return "run"
}

// FileName is the one file-name rule of every artifact a store writes in a
// folder; attr is the resource attribute of KindAttribute keys. The rule
// is injective: two different keys never share a name, not even on a file
// system that ignores case, and no key names a path outside the folder:
//
//   - a trace is its 32 lowercase hex digits: <trace id>.jsonl;
//   - a conversation is conv-<name>.jsonl, an attribute value
//     <name of attr>-<name>.jsonl, where <name> is [Name] of the value.
func FileName(k Key, attr string) string {
	switch k.Kind {
	case KindTrace:
		return k.Trace.String() + Ext
	case KindConversation:
		return "conv-" + Name(k.Value) + Ext
	case KindAttribute:
		return Name(attr) + "-" + Name(k.Value) + Ext
	}
	return ""
}

// Ext is the extension of an artifact file.
const Ext = ".jsonl"

// maxPlain caps the length of a value kept as its own name, and of the
// readable part of a hashed one: well under the 255 bytes file systems
// allow, with the prefix, hash and extension.
const maxPlain = 64

// hashLen is the number of hex digits of a hashed name's suffix: 64 bits
// of SHA-256, so that two values sharing a readable part still differ.
const hashLen = 16

// Name turns a value any sender chose (a conversation id, a resource
// attribute) into part of a file name, injectively:
//
//   - a plain value is kept as it is: 1 to 64 bytes of [a-z0-9._-], not
//     starting with "." and not ending in "-" and 16 hex digits (the
//     shape of a hashed name);
//   - any other value becomes its readable part ([A-Za-z0-9._-] kept, any
//     other byte "_", at most 64 bytes, a leading "." made "_"), "-" and 16
//     hex digits of the SHA-256 of the whole value.
//
// Plain names hold no upper case and hashed ones end in a hash of the
// exact value, so two values differing only in case get two names that
// differ in more than case; a plain value cannot take a hashed value's
// name, since plain values never end like one.
func Name(v string) string {
	if plain(v) {
		return v
	}
	var b strings.Builder
	b.Grow(min(len(v), maxPlain) + 1 + hashLen)
	for i := 0; i < len(v) && b.Len() < maxPlain; i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c == '.' && b.Len() > 0:
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	h := sha256.Sum256([]byte(v))
	b.WriteByte('-')
	b.WriteString(hex.EncodeToString(h[:hashLen/2]))
	return b.String()
}

func plain(v string) bool {
	if len(v) == 0 || len(v) > maxPlain || v[0] == '.' {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return !looksHashed(v)
}

// looksHashed reports whether v ends the way a hashed name does.
func looksHashed(v string) bool {
	n := len(v)
	if n < hashLen+1 || v[n-hashLen-1] != '-' {
		return false
	}
	for i := n - hashLen; i < n; i++ {
		c := v[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
