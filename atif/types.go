// Package atif reads and writes ATIF, the Agent Trajectory Interchange
// Format (Harbor's RFC 0001, docs/rfcs/0001-trajectory-format.md in the
// harbor repository), versions ATIF-v1.0 to ATIF-v1.7.
//
// A trajectory is one agent's run: a root object (schema_version,
// session_id, trajectory_id, agent, notes, final_metrics, extra, and
// since v1.7 embedded subagent_trajectories) holding an ordered list of
// steps, each from the system (a system prompt), the user (a prompt) or
// the agent (one model call: its message, reasoning, tool calls, the
// observation of their results and the call's metrics).
//
// What each version added:
//
//	v1.0 the format
//	v1.1 extra at the root
//	v1.2 observations on system steps; prompt_tokens includes cached_tokens
//	v1.3 metrics.completion_token_ids
//	v1.4 metrics.prompt_token_ids
//	v1.5 step is_copied_context
//	v1.6 multimodal content: a message or a result may be a list of
//	     content parts (text, image)
//	(v1.5 or v1.6: agent.tool_definitions, continued_trajectory_ref; the
//	v1.6 reference models have them, the v1.4 RFC text does not)
//	v1.7 trajectory_id; session_id optional; subagent_trajectories
//	     (embedded, resolved by trajectory_id); tool call and
//	     observation result extra; step llm_call_count
//
// [Decode] reads any of these versions (a later version's fields in an
// earlier version's file are read too), keeping members it does not know;
// [Write] writes [SchemaVersion]. [FromRecords] turns agenttrace records
// into trajectories, and the importer package turns trajectories into
// records.
package atif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// SchemaVersion is the version [Write] writes: the newest.
const SchemaVersion = "ATIF-v1.7"

// Versions are the schema versions [Decode] knows, oldest first.
var Versions = []string{
	"ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3",
	"ATIF-v1.4", "ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7",
}

// Step sources.
const (
	SourceSystem = "system"
	SourceUser   = "user"
	SourceAgent  = "agent"
)

// Trajectory is one ATIF document, or one embedded subagent trajectory.
// Members the schema does not define are kept in Unknown (never written
// back: a writer puts what it has to say in Extra).
type Trajectory struct {
	SchemaVersion          string          `json:"schema_version"`
	SessionID              string          `json:"session_id,omitempty"`
	TrajectoryID           string          `json:"trajectory_id,omitempty"`
	Agent                  Agent           `json:"agent"`
	Steps                  []Step          `json:"steps"`
	Notes                  string          `json:"notes,omitempty"`
	FinalMetrics           *FinalMetrics   `json:"final_metrics,omitempty"`
	ContinuedTrajectoryRef string          `json:"continued_trajectory_ref,omitempty"`
	Extra                  json.RawMessage `json:"extra,omitempty"`
	SubagentTrajectories   []*Trajectory   `json:"subagent_trajectories,omitempty"`

	// Unknown holds the root's members the schema does not define.
	Unknown map[string]json.RawMessage `json:"-"`
	// Offset is where the trajectory starts in the input Decode read (0
	// for the document; an embedded one's own place).
	Offset int `json:"-"`
}

// Agent is the agent system that produced a trajectory.
type Agent struct {
	Name            string          `json:"name"`
	Version         string          `json:"version"`
	ModelName       string          `json:"model_name,omitempty"`
	ToolDefinitions json.RawMessage `json:"tool_definitions,omitempty"`
	Extra           json.RawMessage `json:"extra,omitempty"`
}

// Step is one step: a system prompt, a user message or an agent turn.
type Step struct {
	StepID           int64           `json:"step_id"`
	Timestamp        string          `json:"timestamp,omitempty"`
	Source           string          `json:"source"`
	ModelName        string          `json:"model_name,omitempty"`
	ReasoningEffort  json.RawMessage `json:"reasoning_effort,omitempty"`
	Message          Content         `json:"message"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall      `json:"tool_calls,omitempty"`
	Observation      *Observation    `json:"observation,omitempty"`
	Metrics          *Metrics        `json:"metrics,omitempty"`
	IsCopiedContext  *bool           `json:"is_copied_context,omitempty"`
	LLMCallCount     *int64          `json:"llm_call_count,omitempty"`
	Extra            json.RawMessage `json:"extra,omitempty"`

	// Unknown holds the step's members the schema does not define.
	Unknown map[string]json.RawMessage `json:"-"`
	// Offset is where the step starts in the input Decode read.
	Offset int `json:"-"`
}

// ToolCall is one tool call an agent step makes.
type ToolCall struct {
	ToolCallID   string          `json:"tool_call_id"`
	FunctionName string          `json:"function_name"`
	Arguments    json.RawMessage `json:"arguments"`
	Extra        json.RawMessage `json:"extra,omitempty"`
}

// Observation is what the environment returned in a step.
type Observation struct {
	Results []ObservationResult `json:"results"`
}

// ObservationResult is one result: of the tool call SourceCallID names,
// or of an action that was no tool call (SourceCallID ""), possibly a
// delegation to subagents.
type ObservationResult struct {
	SourceCallID          string          `json:"source_call_id,omitempty"`
	Content               *Content        `json:"content,omitempty"`
	SubagentTrajectoryRef []SubagentRef   `json:"subagent_trajectory_ref,omitempty"`
	Extra                 json.RawMessage `json:"extra,omitempty"`
}

// SubagentRef refers to a subagent's trajectory: embedded in the root's
// subagent_trajectories (TrajectoryID, v1.7) or in a file
// (TrajectoryPath). Before v1.7 SessionID named it; since, it is
// informational.
type SubagentRef struct {
	TrajectoryID   string          `json:"trajectory_id,omitempty"`
	SessionID      string          `json:"session_id,omitempty"`
	TrajectoryPath string          `json:"trajectory_path,omitempty"`
	Extra          json.RawMessage `json:"extra,omitempty"`
}

// Metrics are one agent step's model-call metrics. PromptTokens counts
// every input token, CachedTokens included (v1.2).
type Metrics struct {
	PromptTokens       *int64          `json:"prompt_tokens,omitempty"`
	CompletionTokens   *int64          `json:"completion_tokens,omitempty"`
	CachedTokens       *int64          `json:"cached_tokens,omitempty"`
	CostUSD            *float64        `json:"cost_usd,omitempty"`
	PromptTokenIDs     json.RawMessage `json:"prompt_token_ids,omitempty"`
	CompletionTokenIDs json.RawMessage `json:"completion_token_ids,omitempty"`
	Logprobs           json.RawMessage `json:"logprobs,omitempty"`
	Extra              json.RawMessage `json:"extra,omitempty"`
}

// FinalMetrics are a trajectory's totals as its producer states them.
type FinalMetrics struct {
	TotalPromptTokens     *int64          `json:"total_prompt_tokens,omitempty"`
	TotalCompletionTokens *int64          `json:"total_completion_tokens,omitempty"`
	TotalCachedTokens     *int64          `json:"total_cached_tokens,omitempty"`
	TotalCostUSD          *float64        `json:"total_cost_usd,omitempty"`
	TotalSteps            *int64          `json:"total_steps,omitempty"`
	Extra                 json.RawMessage `json:"extra,omitempty"`
}

// Content is a message or a result: a string, or (v1.6) a list of
// content parts. Parts is nil for a string.
type Content struct {
	Text  string
	Parts []ContentPart
}

// ContentPart is one part of multimodal content: text, or an image.
type ContentPart struct {
	Type   string       `json:"type"`
	Text   string       `json:"text,omitempty"`
	Source *ImageSource `json:"source,omitempty"`
}

// ImageSource is where an image part's image is: a file path or a URL.
type ImageSource struct {
	MediaType string `json:"media_type"`
	Path      string `json:"path"`
}

// Content part types.
const (
	PartText  = "text"
	PartImage = "image"
)

// errContent is why a message or result is neither a string nor a list
// of parts.
var errContent = errors.New("want a string or a list of content parts")

// UnmarshalJSON reads a string or a list of parts; null is "".
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*c = Content{}
		return nil
	case b[0] == '"':
		*c = Content{}
		return json.Unmarshal(b, &c.Text)
	case b[0] == '[':
		var parts []ContentPart
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		*c = Content{Parts: parts}
		if c.Parts == nil {
			c.Parts = []ContentPart{}
		}
		return nil
	}
	return errContent
}

// MarshalJSON writes the string, or the list when there are parts.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// String is the content's text: the string, or its text parts joined by
// newlines.
func (c Content) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var b bytes.Buffer
	for _, p := range c.Parts {
		if p.Type == PartText {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// UnmarshalJSON reads a step, leniently where producers differ without
// meaning anything else: a step_id written as a string of digits, a
// timestamp written as an epoch number (kept as its text). A step_id
// that is no number at all is 0, its text kept in Unknown["step_id"].
func (s *Step) UnmarshalJSON(b []byte) error {
	type plain Step
	aux := struct {
		*plain
		StepID    json.RawMessage `json:"step_id"`
		Timestamp json.RawMessage `json:"timestamp"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	s.StepID = 0
	if id := bytes.TrimSpace(aux.StepID); len(id) > 0 && string(id) != "null" {
		var text string
		if id[0] == '"' {
			if err := json.Unmarshal(id, &text); err != nil {
				return err
			}
		} else {
			text = string(id)
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			if s.Unknown == nil {
				s.Unknown = make(map[string]json.RawMessage)
			}
			s.Unknown["step_id"] = aux.StepID
		}
		s.StepID = n
	}
	s.Timestamp = ""
	if ts := bytes.TrimSpace(aux.Timestamp); len(ts) > 0 && string(ts) != "null" {
		if ts[0] == '"' {
			return json.Unmarshal(ts, &s.Timestamp)
		}
		if _, err := strconv.ParseFloat(string(ts), 64); err != nil {
			return fmt.Errorf("timestamp: want a string, got %s", ts)
		}
		s.Timestamp = string(ts)
	}
	return nil
}
