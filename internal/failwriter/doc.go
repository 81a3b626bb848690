// Package failwriter is test support: an io.Writer that runs out of room
// part-way through a write, as a full disk behind a pipe or a socket whose
// peer went away does, so that the tests of every package that takes an
// io.Writer (store, bridge) exercise the same failure.
package failwriter
