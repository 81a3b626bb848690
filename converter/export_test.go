package converter

// ValidJSONForTest exposes the scanner's verdict on a whole document to the
// fuzz tests.
func ValidJSONForTest(b []byte) bool { return validJSON(b) }
