package converter

// ValidJSONForTest exposes the scanner's verdict on a whole document to the
// fuzz tests.
func ValidJSONForTest(b []byte) bool {
	var s scanner
	s.reset(b)
	s.skipValue()
	s.end()
	return s.err == nil
}

// AppendStringForTest exposes the JSON string writer to the fuzz tests.
func AppendStringForTest(s string) []byte { return appendString(nil, s) }
