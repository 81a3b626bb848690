package atif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNotATIF is returned by [Decode] for input that is no ATIF
// trajectory: not one JSON object, or an object without steps.
var ErrNotATIF = errors.New("not an ATIF trajectory")

// MaxDepth bounds how deep subagent trajectories nest in one document;
// deeper ones are reported and left out.
const MaxDepth = 32

// Problem is a part of a trajectory that could not be read, left out: a
// step, a member, a subagent trajectory. Offset is where it starts in the
// input.
type Problem struct {
	Offset int
	Path   string // "steps[3]", "final_metrics", "subagent_trajectories[0].steps[2]"
	Err    error
}

func (p *Problem) Error() string { return p.Path + ": " + p.Err.Error() }

func (p *Problem) Unwrap() error { return p.Err }

// Read reads a whole ATIF document from r; see [Decode].
func Read(r io.Reader) (*Trajectory, []*Problem, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	return Decode(data)
}

// Decode reads one ATIF document of any version 1.0 to 1.7. It is
// lenient where it can be without losing anything: a step or a member
// that does not decode is left out and reported as a Problem (with its
// offset), members the schema does not define are kept in Unknown, and a
// missing or unknown schema_version is read as the newest. It fails only
// when data is not one JSON object with a steps list (ErrNotATIF, or the
// JSON error, with the offset in the message).
func Decode(data []byte) (*Trajectory, []*Problem, error) {
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	d := decoder{data: data}
	t, err := d.trajectory(0, len(data), "", 0)
	if err != nil {
		return nil, d.problems, err
	}
	return t, d.problems, nil
}

type decoder struct {
	data     []byte
	problems []*Problem
}

func (d *decoder) problem(off int, path string, err error) {
	d.problems = append(d.problems, &Problem{Offset: off, Path: path, Err: err})
}

// member is one member of an object: its key, raw value and offset.
type member struct {
	key string
	raw json.RawMessage
	off int
}

// members reads the object at data[start:end] member by member, with each
// value's offset.
func (d *decoder) members(start, end int) ([]member, error) {
	src := d.data[start:end]
	dec := json.NewDecoder(bytes.NewReader(src))
	tok, err := dec.Token()
	if err != nil {
		return nil, offsetError(start, err)
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: want a JSON object", ErrNotATIF)
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ms, offsetError(start, err)
		}
		key, _ := tok.(string)
		off := start + skipSpace(src, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ms, offsetError(start, err)
		}
		ms = append(ms, member{key: key, raw: raw, off: off})
	}
	if _, err := dec.Token(); err != nil {
		return ms, offsetError(start, err)
	}
	return ms, nil
}

// elements returns the offsets at which the elements of the array at
// data[off:] start, with their raw values.
func (d *decoder) elements(off int, raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("want a list")
	}
	var out []member
	for dec.More() {
		at := off + skipSpace(raw, int(dec.InputOffset()))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out, offsetError(off, err)
		}
		out = append(out, member{raw: v, off: at})
	}
	return out, nil
}

// skipSpace returns the offset of the value after off, past white space
// and the separators the decoder has not consumed.
func skipSpace(b []byte, off int) int {
	for off < len(b) && strings.IndexByte(" \t\r\n,:", b[off]) >= 0 {
		off++
	}
	return off
}

// offsetError says where a JSON error is, as an offset in the input.
func offsetError(base int, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("offset %d: %w", base+int(se.Offset), err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("the JSON ends early: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// trajectory reads the trajectory object at data[start:end].
func (d *decoder) trajectory(start, end int, path string, depth int) (*Trajectory, error) {
	ms, err := d.members(start, end)
	if err != nil {
		return nil, err
	}
	t := &Trajectory{Offset: start}
	hasSteps := false
	for _, m := range ms {
		p := path + m.key
		var err error
		switch m.key {
		case "schema_version":
			err = json.Unmarshal(m.raw, &t.SchemaVersion)
		case "session_id":
			err = unmarshalID(m.raw, &t.SessionID)
		case "trajectory_id":
			err = unmarshalID(m.raw, &t.TrajectoryID)
		case "agent":
			err = json.Unmarshal(m.raw, &t.Agent)
		case "notes":
			err = json.Unmarshal(m.raw, &t.Notes)
		case "final_metrics":
			err = json.Unmarshal(m.raw, &t.FinalMetrics)
		case "continued_trajectory_ref":
			err = json.Unmarshal(m.raw, &t.ContinuedTrajectoryRef)
		case "extra":
			t.Extra = nonNull(m.raw)
		case "steps":
			hasSteps = true
			err = d.steps(t, m, p)
		case "subagent_trajectories":
			err = d.subagents(t, m, p, depth)
		default:
			if t.Unknown == nil {
				t.Unknown = make(map[string]json.RawMessage)
			}
			t.Unknown[m.key] = m.raw
		}
		if err != nil {
			d.problem(m.off, p, err)
		}
	}
	if !hasSteps {
		return nil, fmt.Errorf("%w: it has no \"steps\"", ErrNotATIF)
	}
	return t, nil
}

// unmarshalID reads an identifier: a string, or a number's text.
func unmarshalID(raw json.RawMessage, dst *string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		*dst = string(raw)
		return nil
	}
	if string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, dst)
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	return raw
}

// stepMembers are the members a step has in some version.
var stepMembers = map[string]bool{
	"step_id": true, "timestamp": true, "source": true, "model_name": true, "reasoning_effort": true,
	"message": true, "reasoning_content": true, "tool_calls": true, "observation": true, "metrics": true,
	"is_copied_context": true, "llm_call_count": true, "extra": true,
}

// steps reads the steps one by one: a step that does not decode is
// reported and left out.
func (d *decoder) steps(t *Trajectory, m member, path string) error {
	els, err := d.elements(m.off, m.raw)
	for i, el := range els {
		p := fmt.Sprintf("%s[%d]", path, i)
		var s Step
		if err := json.Unmarshal(el.raw, &s); err != nil {
			d.problem(el.off, p, err)
			continue
		}
		s.Offset = el.off
		var all map[string]json.RawMessage // members of no version, kept
		if json.Unmarshal(el.raw, &all) == nil {
			for k, v := range all {
				if !stepMembers[k] {
					if s.Unknown == nil {
						s.Unknown = make(map[string]json.RawMessage)
					}
					s.Unknown[k] = v
				}
			}
		}
		t.Steps = append(t.Steps, s)
	}
	return err
}

// subagents reads the embedded subagent trajectories (v1.7).
func (d *decoder) subagents(t *Trajectory, m member, path string, depth int) error {
	if string(bytes.TrimSpace(m.raw)) == "null" {
		return nil
	}
	els, err := d.elements(m.off, m.raw)
	for i, el := range els {
		p := fmt.Sprintf("%s[%d]", path, i)
		if depth+1 >= MaxDepth {
			d.problem(el.off, p, fmt.Errorf("subagent trajectories nest deeper than %d", MaxDepth))
			continue
		}
		sub, err := d.trajectory(el.off, el.off+len(el.raw), p+".", depth+1)
		if err != nil {
			d.problem(el.off, p, err)
			continue
		}
		t.SubagentTrajectories = append(t.SubagentTrajectories, sub)
	}
	return err
}
