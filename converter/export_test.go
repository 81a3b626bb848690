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
