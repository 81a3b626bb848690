package artifact

import (
	"encoding/base64"
	"math"
	"strconv"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// The append helpers below write JSON by hand: the record path runs once per
// span, and encoding/json's reflection costs several times more than the
// line it writes (see docs/benchmarks.md).

// appendKey appends "key": for a key known to need no escaping.
func appendKey(dst []byte, key string) []byte {
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// appendField appends ,"key": (or "key": right after an opening brace).
func appendField(dst []byte, key string) []byte {
	if c := dst[len(dst)-1]; c != '{' && c != '[' {
		dst = append(dst, ',')
	}
	return appendKey(dst, key)
}

// appendDouble appends f so that it reads back as a double: always with a
// '.' or an exponent. NaN and the infinities, which JSON cannot hold, are
// tagged.
func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `{"@double":"NaN"}`...)
	case math.IsInf(f, 1):
		return append(dst, `{"@double":"+Inf"}`...)
	case math.IsInf(f, -1):
		return append(dst, `{"@double":"-Inf"}`...)
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e6 {
		if out, ok := appendShortDecimal(dst, f < 0, a); ok {
			return out
		}
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'g', -1, 64)
	for _, c := range dst[n:] {
		if c == '.' || c == 'e' || c == 'E' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

// appendShortDecimal appends a, in [1e-3, 1e6), as appendDouble does
// (strconv's shortest 'g', then ".0" if that has no '.'), when it has at
// most three decimals: a temperature, a top_p, a price. It reports false,
// appending nothing, for any other a.
//
// m/10^k is the decimal m·10^-k correctly rounded (m and 10^k are
// exact), so when it gives back a, that decimal reads back as a. Tried
// for k = 0, 1, 2, 3 in turn, the first that does is the shortest one:
// any decimal of k digits after the point within a's rounding interval
// (narrower than 1.2e-10 below 1e6) is the one nearest a·10^k, and
// those of fewer digits were tried first. Shortest 'g' writes a number
// in this range without an exponent, with no zero after its last digit:
// these digits. TestAppendDoubleAgrees, FuzzAppendDouble.
func appendShortDecimal(dst []byte, neg bool, a float64) ([]byte, bool) {
	for k, p := range [...]float64{1, 10, 100, 1000} {
		m := math.Round(a * p)
		if m/p != a {
			continue
		}
		if neg {
			dst = append(dst, '-')
		}
		u := uint64(m)
		pk := uint64(p)
		dst = strconv.AppendUint(dst, u/pk, 10)
		dst = append(dst, '.')
		if k == 0 {
			return append(dst, '0'), true
		}
		frac := u % pk
		for d := pk / 10; d > 0; d /= 10 { // k digits, leading zeros kept
			dst = append(dst, byte('0'+frac/d%10))
		}
		return dst, true
	}
	return dst, false
}

func appendBase64(dst []byte, b []byte) []byte {
	return base64.StdEncoding.AppendEncode(dst, b)
}

// digitPairs holds "00" to "99": two digits per lookup.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendTimestamp appends nanoseconds since the Unix epoch as RFC 3339 in
// UTC with all nine fractional digits, quoted, without going through
// time.Time: pdata timestamps are uint64 and reach past what time.Unix
// accepts. Every record has two, so it fills a fixed array two digits at
// a time and appends it once.
func appendTimestamp(dst []byte, ns uint64) []byte { return appendTimestampOn(dst, ns, nil) }

// A dayCache keeps the date of the day the last timestamp fell on, and
// the digits up to the minute of the last minute: the times of a record,
// and of a batch, are mostly on one day and often in one minute, and the
// calendar arithmetic costs more than the digits.
type dayCache struct {
	days    uint64
	year    int64
	mon, dd int
	set     bool
	mins    uint64   // the minute head holds
	head    [18]byte // "YYYY-MM-DDTHH:MM:, set with minSet
	minSet  bool
}

// appendTimestampOn is appendTimestamp taking the date, or the digits up
// to the minute, from c when the day (the minute) is the one c holds (c
// may be nil).
func appendTimestampOn(dst []byte, ns uint64, c *dayCache) []byte {
	secs := ns / 1e9
	frac := ns % 1e9
	var b [32]byte
	if mins := secs / 60; c != nil && c.minSet && c.mins == mins {
		copy(b[:18], c.head[:])
	} else {
		days := secs / 86400
		rem := secs % 86400
		// A uint64 of nanoseconds ends in 2554: the year has four digits.
		var y int64
		var m, d int
		switch {
		case c == nil:
			y, m, d = civilFromDays(int64(days))
		case c.set && c.days == days:
			y, m, d = c.year, c.mon, c.dd
		default:
			y, m, d = civilFromDays(int64(days))
			c.days, c.year, c.mon, c.dd, c.set = days, y, m, d, true
		}
		b[0] = '"'
		putPair(b[1:], int(y/100))
		putPair(b[3:], int(y%100))
		b[5] = '-'
		putPair(b[6:], m)
		b[8] = '-'
		putPair(b[9:], d)
		b[11] = 'T'
		putPair(b[12:], int(rem/3600))
		b[14] = ':'
		putPair(b[15:], int(rem%3600/60))
		b[17] = ':'
		if c != nil {
			c.mins, c.minSet = mins, true
			copy(c.head[:], b[:18])
		}
	}
	putPair(b[18:], int(secs%60))
	b[20] = '.'
	f := int(frac)
	putPair(b[28:], f%100)
	f /= 100
	putPair(b[26:], f%100)
	f /= 100
	putPair(b[24:], f%100)
	f /= 100
	putPair(b[22:], f%100)
	b[21] = byte('0' + f/100)
	b[30] = 'Z'
	b[31] = '"'
	return append(dst, b[:]...)
}

// putPair writes v, 0 to 99, as two digits at b[0:2].
func putPair(b []byte, v int) {
	_ = b[1]
	b[0], b[1] = digitPairs[2*v], digitPairs[2*v+1]
}

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func civilFromDays(z int64) (year int64, month, day int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	year = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		month = int(mp + 3)
	} else {
		month = int(mp - 9)
	}
	if month <= 2 {
		year++
	}
	return year, month, day
}

// daysFromCivil is the inverse of civilFromDays.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mm := int64(m)
	if mm > 2 {
		mm -= 3
	} else {
		mm += 9
	}
	doy := (153*mm+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// appendMillis appends a duration in nanoseconds as milliseconds with up
// to microsecond precision (elapsed_ms).
func appendMillis(dst []byte, ns int64) []byte {
	if ns < 0 {
		dst = append(dst, '-')
		ns = -ns
	}
	us := ns / 1000
	dst = appendInt(dst, us/1000)
	if f := us % 1000; f != 0 {
		dst = append(dst, '.')
		d := [3]byte{byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
		n := 3
		for n > 0 && d[n-1] == '0' {
			n--
		}
		dst = append(dst, d[:n]...)
	}
	return dst
}

// AppendJSONString appends s as a JSON string, the way artifacts write
// strings: invalid UTF-8 becomes U+FFFD, U+2028 and U+2029 are escaped.
// Importers that build JSON-valued attributes use it to write them alike.
func AppendJSONString(dst []byte, s string) []byte { return jsonlex.AppendString(dst, s) }
