// Package sizes holds the repository's size rule and its test: no
// non-test Go file over MaxFileLines lines and no function over
// MaxFuncLines, so that a file carries one concept and a function can be
// read at once. Files and functions that were larger when the rule came
// are listed in baseline.txt with the size they had; the test fails when
// one of them grows or when a new one crosses a limit, and says so when
// one shrinks under its limit (take it off the list). Generated files
// ("Code generated ... DO NOT EDIT.") and files whose package clause is
// preceded by a line "//agenttrace:size-exempt REASON" (table-driven
// data) are not measured.
package sizes
