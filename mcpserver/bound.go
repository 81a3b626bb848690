package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"
)

// ErrTooLarge is an answer that does not fit its bound even with nothing
// listed: it should never be returned, and is a tool error if it is.
var ErrTooLarge = errors.New("answer larger than its bound")

// Page is the paging part of a paged answer: which items it holds, how
// many there are, and where the next page starts.
type Page struct {
	// Total counts the items there are, on every page.
	Total int `json:"total"`
	// Offset is the index of the first item listed.
	Offset int `json:"offset"`
	// Returned counts the items listed.
	Returned int `json:"returned"`
	// NextOffset is the offset to ask for next; absent on the last page.
	NextOffset *int `json:"next_offset,omitempty"`
	// Note says when the answer was cut, why, and how to get the rest.
	Note string `json:"note,omitempty"`
}

// PageArgs are the paging arguments of a paged tool.
type PageArgs struct {
	Offset int `json:"offset,omitempty" jsonschema:"index of the first item to list (default 0): the next_offset of the previous answer"`
	Limit  int `json:"limit,omitempty" jsonschema:"most items to list (a default and a maximum apply; an answer is also cut to stay within its byte bound)"`
}

// window returns the items of all that a's offset and limit ask for,
// within def (the default limit) and most (the maximum), and the offset.
func window[T any](all []T, a PageArgs, def, most int) ([]T, int, error) {
	if a.Offset < 0 || a.Limit < 0 {
		return nil, 0, fmt.Errorf("offset %d, limit %d: want 0 or more", a.Offset, a.Limit)
	}
	limit := a.Limit
	if limit == 0 {
		limit = def
	}
	limit = min(limit, most)
	from := min(a.Offset, len(all))
	return all[from:min(from+limit, len(all))], from, nil
}

// fit returns the answer mk makes of as many of items (the window at
// offset from, of total items in all) as keep its JSON within bound
// bytes, with its Page: the most that fit, found by bisection (an answer
// grows with its items). When the first item alone does not fit, shrink
// (if not nil) is asked for a smaller version of it, which is listed
// instead and said to be shortened.
func fit[T, O any](bound int, items []T, from, total int, mk func([]T, Page) O, shrink func(T, int) T) (O, error) {
	size := func(its []T, pg Page) int {
		b, err := json.Marshal(mk(its, pg))
		if err != nil {
			return bound + 1
		}
		return len(b)
	}
	pageOf := func(n int, cut string) Page {
		pg := Page{Total: total, Offset: from, Returned: n}
		if next := from + n; next < total {
			pg.NextOffset = &next
			pg.Note = fmt.Sprintf("%d of %d listed; call again with offset=%d for the rest", next, total, next)
			if cut != "" {
				pg.Note = cut + "; " + pg.Note
			}
		} else if cut != "" {
			pg.Note = cut
		}
		return pg
	}
	cutNote := fmt.Sprintf("cut to keep the answer within %d bytes", bound)
	// The largest n whose answer fits: sort.Search finds the first that
	// does not.
	n := sort.Search(len(items), func(i int) bool {
		k := i + 1
		return size(items[:k], pageOf(k, cutNote)) > bound
	})
	if n > 0 || len(items) == 0 {
		note := ""
		if n < len(items) {
			note = cutNote
		}
		return mk(items[:n], pageOf(n, note)), nil
	}
	if shrink != nil {
		note := fmt.Sprintf("the item at offset %d was shortened to fit within %d bytes (see its cut fields)", from, bound)
		// Halve the room given to each value until it fits.
		for room := bound / 2; room >= 16; room /= 2 {
			one := []T{shrink(items[0], room)}
			if pg := pageOf(1, note); size(one, pg) <= bound {
				return mk(one, pg), nil
			}
		}
	}
	if pg := pageOf(0, cutNote); size(nil, pg) <= bound {
		pg.Note = fmt.Sprintf("the item at offset %d alone is larger than %d bytes and cannot be listed; call again with offset=%d to skip it", from, bound, from+1)
		next := from + 1
		pg.NextOffset = &next
		return mk(nil, pg), nil
	}
	var zero O
	return zero, fmt.Errorf("%w (%d bytes)", ErrTooLarge, bound)
}

// clip cuts s to at most n bytes (on a rune boundary), saying how much
// was left out; it reports whether it cut.
func clip(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[cut: %d more bytes]", len(s)-cut), true
}

// clipList keeps the first n names of l, and says how many were left out
// as a last element.
func clipList(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	out := append([]string(nil), l[:n]...)
	return append(out, fmt.Sprintf("…(%d more)", len(l)-n))
}
