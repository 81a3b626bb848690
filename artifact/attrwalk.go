package artifact

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// attrWalk is the encoder's part of the reading's walk of a span's
// attributes (semconv.ReadWith calls Attr on each): it redacts each one
// (the Encoder's SpanRedactor, when set) and encodes, as it comes, each one
// whose key no field can take, so that after the walk the record's
// "attrs" object is put together without a second walk of the span's
// attribute map. An attribute whose key the reading knows is encoded only
// when no field took it (see appendAttrs).
type attrWalk struct {
	red   SpanRedactor // nil: no redaction
	buf   []byte       // the unknown attributes' members, "key":value, one after another
	items []walkedAttr // every attribute, in walk order
}

// walkedAttr is one attribute of the walk: for one whose key the reading
// knows, its key and value; for any other, where its member ends in buf.
type walkedAttr struct {
	key   string
	val   pcommon.Value
	end   int32
	known bool
}

// maxKeptWalk bounds the member bytes an Encoder keeps between records:
// one huge attribute should not pin its size for good.
const maxKeptWalk = 64 << 10

// start readies w for a span, redacting with red (nil: none).
func (w *attrWalk) start(red SpanRedactor) {
	w.red = red
	if cap(w.buf) > maxKeptWalk {
		w.buf = nil
	}
	if w.items == nil {
		// Sized once for a span's usual attributes: an Encoder made per
		// artifact should not grow it step by step.
		w.items = make([]walkedAttr, 0, 32)
	}
	w.buf, w.items = w.buf[:0], w.items[:0]
}

// Attr is semconv.AttrHook's: the attribute is redacted first, then read
// and, when its key is not one the reading knows, encoded.
func (w *attrWalk) Attr(key string, v pcommon.Value, known bool) {
	if w.red != nil {
		w.red.Attr(key, v)
	}
	if known {
		w.items = append(w.items, walkedAttr{key: key, val: v, known: true})
		return
	}
	w.buf = jsonlex.AppendString(w.buf, key)
	w.buf = append(w.buf, ':')
	w.buf = appendValue(w.buf, v)
	w.items = append(w.items, walkedAttr{end: int32(len(w.buf))})
}

// appendAttrs appends the walked attributes no field took (skip: the
// indexes, from 1 and ascending, of those that were), as appendMap
// appends them from the map.
func (w *attrWalk) appendAttrs(dst []byte, skip []int32) []byte {
	dst = append(dst, '{')
	first := true
	from := int32(0)
	for j := range w.items {
		it := &w.items[j]
		if it.known {
			if len(skip) > 0 && skip[0] == int32(j+1) {
				skip = skip[1:]
				continue
			}
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if it.known {
			dst = jsonlex.AppendString(dst, it.key)
			dst = append(dst, ':')
			dst = appendValue(dst, it.val)
			continue
		}
		dst = append(dst, w.buf[from:it.end]...)
		from = it.end
	}
	return append(dst, '}')
}
