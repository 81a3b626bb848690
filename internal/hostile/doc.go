// Package hostile holds the hostile-request suite of `agenttrace serve
// --otlp` (issue 22): its test builds the real CLI, starts it as a child
// process on loopback, and sends what an attacker on the same machine or
// a web page the user visits could send (a rebinding Host, a cross-origin
// page, gzip bombs, oversized and slow bodies, floods past the in-flight
// limit, deep nesting, garbage gRPC, absent ids). After each request it
// checks the answer, that the process lives, that its peak RSS stays
// under a stated bound, that a normal client is still served, and that
// everything acknowledged before is in the folder and passes `validate`.
// The package has no code outside its test.
package hostile
