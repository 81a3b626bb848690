// Package genai records what an instrumented agent framework emits under
// the GenAI semantic conventions v1.41: the message JSON of
// gen-ai-input-messages.json, gen-ai-output-messages.json and
// gen-ai-system-instructions.json, and the invoke_agent, chat and
// execute_tool spans that carry it.
//
// Both simulated agents record through it: the demo's planner
// (internal/agentsim) and the fixture generator's (internal/cmd/gentestdata).
// Their output is pinned byte for byte (the demo's artifact, testdata/otlp),
// so a change here shows up in both as a diff.
package genai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/semconv"
)

// SchemaURL is the schema of the conventions the spans follow.
const SchemaURL = "https://opentelemetry.io/schemas/1.41.0"

// provider is the gen_ai.provider.name of every simulated call.
const provider = "openai"

// Part is one part of a message.
type Part struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Content   string `json:"content,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Response  any    `json:"response,omitempty"`
}

// Message is one message of gen_ai.input.messages or gen_ai.output.messages.
type Message struct {
	Role         string `json:"role"`
	Parts        []Part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// ToolDef is one entry of gen_ai.tool.definitions.
type ToolDef struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

// Function is the definition of a function tool as the simulators declare
// every tool: its parameters are a JSON Schema object of properties
// (StringParam, DateParam and the like, or any schema), of which those named
// in required must be given.
func Function(name, description string, properties map[string]any, required ...string) ToolDef {
	return ToolDef{Type: "function", Name: name, Description: description, Parameters: map[string]any{
		"type":       "object",
		"properties": properties,
		"required":   required,
	}}
}

// StringParam is a string parameter's schema, described when description
// is not empty.
func StringParam(description string) map[string]any {
	if description == "" {
		return map[string]any{"type": "string"}
	}
	return map[string]any{"type": "string", "description": description}
}

// DateParam is the schema of a parameter holding a date (YYYY-MM-DD).
func DateParam() map[string]any { return map[string]any{"type": "string", "format": "date"} }

// EnumParam is the schema of a string parameter that takes one of values.
func EnumParam(values ...string) map[string]any {
	return map[string]any{"type": "string", "enum": values}
}

// NumberParam is a number parameter's schema.
func NumberParam() map[string]any { return map[string]any{"type": "number"} }

// IntegerParam is an integer parameter's schema.
func IntegerParam() map[string]any { return map[string]any{"type": "integer"} }

// Text is a text part.
func Text(s string) Part { return Part{Type: "text", Content: s} }

// Reasoning is a reasoning part.
func Reasoning(s string) Part { return Part{Type: "reasoning", Content: s} }

// ToolCall is the part with which the model asks for tool name.
func ToolCall(id, name string, args any) Part {
	return Part{Type: "tool_call", ID: id, Name: name, Arguments: args}
}

// ToolResponse is the part that gives the model the response to call id.
func ToolResponse(id string, response any) Part {
	return Part{Type: "tool_call_response", ID: id, Response: response}
}

// User is a user message.
func User(parts ...Part) Message { return Message{Role: "user", Parts: parts} }

// Assistant is a model's message, ended for finishReason ("stop",
// "tool_call").
func Assistant(finishReason string, parts ...Part) Message {
	return Message{Role: "assistant", Parts: parts, FinishReason: finishReason}
}

// Tool is a message of tool responses.
func Tool(parts ...Part) Message { return Message{Role: "tool", Parts: parts} }

// MustJSON encodes v as compact JSON without HTML escaping, as most
// instrumentations write it (map keys sorted, so the bytes are stable). It
// panics only on values that JSON cannot encode, which the simulators do
// not build.
func MustJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("genai: encode %T: %v", v, err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// UsageAttributes are the gen_ai.usage.* attributes of u: input and output
// tokens always, the others when not zero.
func UsageAttributes(u semconv.Usage) []attribute.KeyValue {
	kvs := []attribute.KeyValue{
		attribute.Int64(semconv.UsageInputTokens, u.Input),
		attribute.Int64(semconv.UsageOutputTokens, u.Output),
	}
	if u.CacheRead > 0 {
		kvs = append(kvs, attribute.Int64(semconv.UsageCacheReadInput, u.CacheRead))
	}
	if u.CacheCreation > 0 {
		kvs = append(kvs, attribute.Int64(semconv.UsageCacheCreationInput, u.CacheCreation))
	}
	if u.Reasoning > 0 {
		kvs = append(kvs, attribute.Int64(semconv.UsageReasoningOutput, u.Reasoning))
	}
	return kvs
}

// Agent is an agent as its invoke_agent span names it.
type Agent struct {
	Name, ID, Description string
	Model                 string
	ConversationID        string // "": not sent
}

// StartAgent starts the INTERNAL span "invoke_agent {name}" of an agent
// given input; opts add the start time and links.
func StartAgent(ctx context.Context, tr trace.Tracer, a Agent, input []Message, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{
		attribute.String(semconv.OperationName, semconv.OpInvokeAgent),
		attribute.String(semconv.ProviderName, provider),
		attribute.String(semconv.AgentName, a.Name),
		attribute.String(semconv.AgentID, a.ID),
		attribute.String("gen_ai.agent.description", a.Description),
		attribute.String(semconv.RequestModel, a.Model),
	}
	if a.ConversationID != "" {
		attrs = append(attrs, attribute.String(semconv.ConversationID, a.ConversationID))
	}
	attrs = append(attrs, attribute.String(semconv.InputMessages, MustJSON(input)))
	opts = append([]trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...)}, opts...)
	return tr.Start(ctx, semconv.OpInvokeAgent+" "+a.Name, opts...)
}

// EndAgent ends an invoke_agent span at at. Like agent frameworks, the span
// repeats the usage u of the model calls made under it; it carries the
// agent's answer, unless err stopped the agent: then it ends as [End] ends
// it.
func EndAgent(span trace.Span, answer string, u semconv.Usage, err error, errType string, at trace.SpanEventOption) {
	if err == nil {
		out := []Message{Assistant("stop", Text(answer))}
		span.SetAttributes(attribute.String(semconv.OutputMessages, MustJSON(out)))
	}
	span.SetAttributes(UsageAttributes(u)...)
	End(span, err, errType, at)
}

// Chat is one model call as its chat span records it. The messages,
// system instructions and tool definitions come encoded (see [MustJSON]),
// as callers that estimate tokens from them have them.
type Chat struct {
	Model, ResponseModel, ResponseID string
	Temperature                      float64 // 0: not sent (reasoning models)
	MaxTokens                        int
	System, Tools                    string // JSON of []Part, []ToolDef
	Input, Output                    string // JSON of []Message
	FinishReasons                    []string
	Usage                            semconv.Usage
}

// RecordChat records the CLIENT span "chat {model}" of c from start to
// end. The attributes a sampler may look at are set at the start, the
// others after, as instrumentations do.
func RecordChat(ctx context.Context, tr trace.Tracer, c Chat, start, end trace.SpanEventOption) {
	_, span := tr.Start(ctx, semconv.OpChat+" "+c.Model,
		trace.WithSpanKind(trace.SpanKindClient), start,
		trace.WithAttributes(
			attribute.String(semconv.OperationName, semconv.OpChat),
			attribute.String(semconv.ProviderName, provider),
			attribute.String(semconv.RequestModel, c.Model),
			attribute.String("server.address", "api.openai.com"),
			attribute.Int("server.port", 443),
		))
	if c.Temperature != 0 {
		span.SetAttributes(attribute.Float64(semconv.RequestTemperature, c.Temperature))
	}
	span.SetAttributes(
		attribute.Int(semconv.RequestMaxTokens, c.MaxTokens),
		attribute.String(semconv.SystemInstructions, c.System),
		attribute.String(semconv.ToolDefinitions, c.Tools),
		attribute.String(semconv.InputMessages, c.Input),
		attribute.String(semconv.ResponseID, c.ResponseID),
		attribute.String(semconv.ResponseModel, c.ResponseModel),
		attribute.StringSlice(semconv.ResponseFinishReasons, c.FinishReasons),
		attribute.String(semconv.OutputMessages, c.Output),
	)
	span.SetAttributes(UsageAttributes(c.Usage)...)
	span.End(end)
}

// StartTool starts the INTERNAL span "execute_tool {name}" of the function
// tool call id with args; opts add the start time.
func StartTool(ctx context.Context, tr trace.Tracer, name, description, id string, args any, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	opts = append([]trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String(semconv.OperationName, semconv.OpExecuteTool),
			attribute.String(semconv.ToolName, name),
			attribute.String(semconv.ToolCallID, id),
			attribute.String(semconv.ToolType, "function"),
			attribute.String("gen_ai.tool.description", description),
			attribute.String(semconv.ToolCallArguments, MustJSON(args)),
		),
	}, opts...)
	return tr.Start(ctx, semconv.OpExecuteTool+" "+name, opts...)
}

// EndTool ends an execute_tool span at at with the tool's result, or as
// [End] ends it when the tool failed with err.
func EndTool(span trace.Span, result any, err error, errType string, at trace.SpanEventOption) {
	if err == nil {
		span.SetAttributes(attribute.String(semconv.ToolCallResult, MustJSON(result)))
	}
	End(span, err, errType, at)
}

// End ends span at at; when err is not nil, with an exception event for
// it, an Error status with its message and error.type errType.
func End(span trace.Span, err error, errType string, at trace.SpanEventOption) {
	if err != nil {
		span.RecordError(err, at)
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(attribute.String(semconv.ErrorType, errType))
	}
	span.End(at)
}
