//go:build race

package importer

// raceEnabled: the race detector slows the importer some 30 times, so the
// long-log test shrinks its log under it.
const raceEnabled = true
