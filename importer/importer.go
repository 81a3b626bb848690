// Package importer reads the agent-trace shapes in use besides OTLP and
// the agenttrace artifact — transcript event logs, trajectory logs,
// streaming trace events, Jaeger JSON, AgentEval traces, ATIF
// trajectories, the collector file exporter's protobuf stream — and
// turns them into records with GenAI semantics:
// tool calls become execute_tool spans, model round-trips chat spans with
// usage, agent dispatches nested invoke_agent spans, errors error status
// with error.type. Ids are synthesized deterministically from the content,
// so importing the same file twice gives the same spans.
//
// Nothing silently vanishes: records a shape does not define are counted
// by type in Stats.Unknown, lines that cannot be read are reported with
// their line numbers in Stats.Problems, a cancelled stream's unfinished
// tool calls become error spans with code "cancelled", and a value the
// shape marks as truncated keeps its full length in an attribute.
package importer

import (
	"io"

	"github.com/agenttrace/agenttrace/artifact"
)

// Shape names an input shape.
type Shape string

// The shapes agenttrace reads. The first four are converter's own.
const (
	Artifact     Shape = "jsonl"           // agenttrace artifact, tool-dispatch traces included
	OTLPJSON     Shape = "otlp-json"       // one OTLP/JSON document
	OTLPJSONLine Shape = "otlp-json-lines" // one OTLP/JSON TracesData per line
	OTLPProto    Shape = "otlp-proto"      // one OTLP protobuf TracesData
	OTLPStream   Shape = "otlp-proto-stream"
	Transcript   Shape = "transcript" // transcript event log (dialects.md §2)
	Trajectory   Shape = "trajectory" // trajectory log (§3)
	Events       Shape = "events"     // streaming trace events, JSON array or one per line (§4)
	Jaeger       Shape = "jaeger"     // Jaeger query API / UI download JSON (§5)
	AgentEval    Shape = "agenteval"  // AgentEval's AgentTrace JSON, a list of TraceEntry (seed 002)
	ATIF         Shape = "atif"       // Agent Trajectory Interchange Format (Harbor RFC 0001), v1.0 to v1.7
	Unknown      Shape = ""
)

// Stats is what an import read and could not use.
type Stats struct {
	// Records counts the records emitted.
	Records int64
	// Unknown counts records of types the shape does not define, by type.
	Unknown map[string]int64
	// Problems are the lines that could not be read, as
	// *artifact.LineError ("file:line: problem"), in order: the first
	// 1,000, then one saying how many more there were.
	Problems []error
	// Skipped counts every line reported and skipped, listed or not.
	Skipped int64
}

// Func reads one shape from r (name is used in messages) and calls emit
// for every record, in the order the records' spans end. It streams: it
// holds no more of the input than one unit of the shape needs (a line, an
// open tool call, an open task), so inputs of any size import in bounded
// memory — except shapes that are one JSON document (Jaeger JSON, an
// events array), which are read whole. An error from emit stops it.
type Func func(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error)
