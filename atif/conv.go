package atif

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/agenttrace/agenttrace/semconv"
)

// A trajectory is a conversation: each agent step's model call was sent
// the system prompts and every message before it, and answered the step's
// own message. This file is that reading, one rule for the importer (the
// input messages it gives each model call) and for [FromRecords] (which
// checks that the rule gives back each call's input, and otherwise keeps
// the input in the step's extra).

// ExtraKey is the member of a step's extra under which agenttrace keeps
// what ATIF has no field for: {"input_messages", "output_messages",
// "system_instructions", "finish_reason"}, each only when the step's
// own fields do not already say it.
const ExtraKey = "agenttrace"

// StepExtra is what agenttrace keeps under [ExtraKey] in a step's extra.
type StepExtra struct {
	// Input are the messages the call was sent, when they are not the
	// conversation before the step.
	Input []semconv.Message `json:"input_messages,omitempty"`
	// Output is what the call answered, when the step's message,
	// reasoning and tool calls do not say it all.
	Output []semconv.Message `json:"output_messages,omitempty"`
	// System are the call's system instructions, when they are not the
	// system steps before it.
	System []semconv.Part `json:"system_instructions,omitempty"`
	// FinishReason is why the call stopped.
	FinishReason string `json:"finish_reason,omitempty"`
	// NoInput and NoSystem say the call was sent no messages, or no
	// system instructions, though steps before it hold some.
	NoInput  bool `json:"no_input,omitempty"`
	NoSystem bool `json:"no_system_instructions,omitempty"`
	// Evaluations are the gen_ai.evaluation.result verdicts on the call.
	Evaluations []semconv.Evaluation `json:"evaluations,omitempty"`
}

// UnmarshalJSON reads the conventions' message shape ([semconv.Part]
// writes it; its members are snake_case).
func (x *StepExtra) UnmarshalJSON(b []byte) error {
	var raw struct {
		Input        []wireMessage        `json:"input_messages"`
		Output       []wireMessage        `json:"output_messages"`
		System       []wirePart           `json:"system_instructions"`
		FinishReason string               `json:"finish_reason"`
		NoInput      bool                 `json:"no_input"`
		NoSystem     bool                 `json:"no_system_instructions"`
		Evaluations  []semconv.Evaluation `json:"evaluations"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*x = StepExtra{Input: messagesOf(raw.Input), Output: messagesOf(raw.Output), FinishReason: raw.FinishReason,
		NoInput: raw.NoInput, NoSystem: raw.NoSystem, Evaluations: raw.Evaluations}
	if raw.System != nil {
		x.System = partsOf(raw.System)
	}
	return nil
}

// wireMessage and wirePart are a message and a part as JSON.
type wireMessage struct {
	Role         string     `json:"role"`
	Parts        []wirePart `json:"parts"`
	Name         string     `json:"name"`
	FinishReason string     `json:"finish_reason"`
}

type wirePart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Response  json.RawMessage `json:"response"`
	Modality  string          `json:"modality"`
	MimeType  string          `json:"mime_type"`
	URI       string          `json:"uri"`
}

func messagesOf(ws []wireMessage) []semconv.Message {
	if ws == nil {
		return nil
	}
	out := make([]semconv.Message, len(ws))
	for i, w := range ws {
		out[i] = semconv.Message{Role: w.Role, Parts: partsOf(w.Parts), Name: w.Name, FinishReason: w.FinishReason}
	}
	return out
}

func partsOf(ws []wirePart) []semconv.Part {
	out := make([]semconv.Part, len(ws))
	for i, w := range ws {
		out[i] = semconv.Part{Type: w.Type, Content: w.Content, ID: w.ID, Name: w.Name, Arguments: jsonValue(w.Arguments),
			Response: jsonValue(w.Response), Modality: w.Modality, MimeType: w.MimeType, URI: w.URI}
	}
	return out
}

// Evaluations reads the verdicts agenttrace keeps under [ExtraKey] in an
// extra object (a trajectory's: those on its agent).
func Evaluations(extra json.RawMessage) []semconv.Evaluation {
	var m map[string]struct {
		Evaluations []semconv.Evaluation `json:"evaluations"`
	}
	if len(extra) == 0 || json.Unmarshal(extra, &m) != nil {
		return nil
	}
	return m[ExtraKey].Evaluations
}

// AgentExtra reads [ExtraKey] from a step's extra; ok is false when there
// is none.
func (s *Step) AgentExtra() (x StepExtra, ok bool) {
	if len(s.Extra) == 0 {
		return x, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(s.Extra, &m) != nil || m[ExtraKey] == nil {
		return x, false
	}
	return x, json.Unmarshal(m[ExtraKey], &x) == nil
}

// History is the conversation as far as a trajectory's steps have gone.
type History struct {
	System   []semconv.Part
	Messages []semconv.Message
}

// Add adds a step: a system step's message to the system instructions, a
// user step as a user message, an agent step as the assistant message it
// answered, and every observation result of a tool call as a tool message.
func (h *History) Add(s *Step) {
	switch s.Source {
	case SourceSystem:
		h.System = append(h.System, contentParts(s.Message)...)
	case SourceUser:
		h.Messages = append(h.Messages, semconv.Message{Role: "user", Parts: contentParts(s.Message)})
	case SourceAgent:
		for _, m := range StepOutput(s) {
			if len(m.Parts) > 0 { // a call that answered nothing added nothing
				h.Messages = append(h.Messages, m)
			}
		}
	}
	if s.Observation == nil {
		return
	}
	for _, r := range s.Observation.Results {
		if r.SourceCallID == "" || r.Content == nil {
			continue
		}
		h.Messages = append(h.Messages, semconv.Message{Role: "tool", Parts: []semconv.Part{{
			Type: semconv.PartToolResponse, ID: r.SourceCallID, Response: ResultValue(*r.Content)}}})
	}
}

// Input returns a copy of the messages so far, for a call's input.
func (h *History) Input() []semconv.Message { return slices.Clone(h.Messages) }

// CallInput is what the model call of agent step s was sent, after the
// steps before it (h): its system instructions and input messages, the
// step's extra's where it keeps them.
func (h *History) CallInput(s *Step) (system []semconv.Part, input []semconv.Message) {
	system, input = h.System, h.Input()
	x, _ := s.AgentExtra()
	switch {
	case x.NoSystem:
		system = nil
	case x.System != nil:
		system = x.System
	}
	switch {
	case x.NoInput:
		input = nil
	case x.Input != nil:
		input = x.Input
	}
	return system, input
}

// StepOutput is what an agent step's model call answered: one assistant
// message of its reasoning, its message and its tool calls (the extra's
// output_messages instead, when it has them).
func StepOutput(s *Step) []semconv.Message {
	if x, ok := s.AgentExtra(); ok && x.Output != nil {
		return x.Output
	}
	m := semconv.Message{Role: "assistant"}
	if s.ReasoningContent != "" {
		m.Parts = append(m.Parts, semconv.Part{Type: semconv.PartReasoning, Content: s.ReasoningContent})
	}
	m.Parts = append(m.Parts, contentParts(s.Message)...)
	for _, tc := range s.ToolCalls {
		m.Parts = append(m.Parts, semconv.Part{Type: semconv.PartToolCall, ID: tc.ToolCallID, Name: tc.FunctionName,
			Arguments: jsonValue(tc.Arguments)})
	}
	if x, ok := s.AgentExtra(); ok {
		m.FinishReason = x.FinishReason
	}
	if m.Parts == nil {
		m.Parts = []semconv.Part{}
	}
	return []semconv.Message{m}
}

// contentParts is content as message parts: a string as one text part
// ("" as none), text parts as text, image parts as uri parts.
func contentParts(c Content) []semconv.Part {
	if c.Parts == nil {
		if c.Text == "" {
			return nil
		}
		return []semconv.Part{{Type: semconv.PartText, Content: c.Text}}
	}
	out := make([]semconv.Part, 0, len(c.Parts))
	for _, p := range c.Parts {
		switch {
		case p.Type == PartImage && p.Source != nil:
			out = append(out, semconv.Part{Type: semconv.PartURI, Modality: "image", MimeType: p.Source.MediaType, URI: p.Source.Path})
		default:
			out = append(out, semconv.Part{Type: semconv.PartText, Content: p.Text})
		}
	}
	return out
}

// ResultValue is an observation's content as a tool result: the string,
// or the list of parts as its JSON value.
func ResultValue(c Content) any {
	if c.Parts == nil {
		return c.Text
	}
	b, err := json.Marshal(c.Parts)
	if err != nil {
		return c.String()
	}
	return jsonValue(b)
}

// jsonValue decodes raw JSON into a Go value (nil for none or null).
func jsonValue(raw json.RawMessage) any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	return v
}
