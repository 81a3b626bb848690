// Command genkit-go captures Genkit (Go) telemetry: Genkit records its spans
// on the global OpenTelemetry tracer provider, so the program installs an SDK
// tracer provider with the OTLP/HTTP exporter (protobuf: the Go exporter has
// no JSON encoding) pointed at the loopback sink, then runs one scenario
// inside a Genkit flow against the fake model server through the
// compat_oai/openai and anthropic plugins.
//
// It is run by capture.sh (harness/capture-lib.sh), which sets LIB, SCENARIO,
// ENCODING and FAKE_BASE.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/anthropic"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/openai/openai-go/option"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// The script's texts (harness/script.mjs holds the same values).
const (
	system       = "You are a concise weather assistant. Use the tools when needed."
	toolPrompt   = "What is the weather in Paris today?"
	streamPrompt = "Summarize the document in one sentence."
	failPrompt   = "This request will be rate limited."
	toolResult   = "18 degrees Celsius and sunny"
)

func streamSystem() string {
	return "You summarize documents. " + strings.Repeat("The document: The Eiffel Tower was completed in 1889 for the World's Fair. ", 8)
}

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func need(k string) string {
	v := os.Getenv(k)
	if v == "" {
		log.Fatalf("%s is not set (run through harness/capture-lib.sh)", k)
	}
	return v
}

func run(ctx context.Context) error {
	lib, scenario, enc, base := need("LIB"), need("SCENARIO"), need("ENCODING"), need("FAKE_BASE")
	if enc != "pb" {
		return fmt.Errorf("encoding %q: the Go OTLP/HTTP exporter sends protobuf only", enc)
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(fmt.Sprintf("%s/sink/%s/%s/v1/traces", base, lib, scenario)))
	if err != nil {
		return fmt.Errorf("otlp exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName("capture-"+lib))),
	)
	otel.SetTracerProvider(tp)
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			log.Printf("tracer shutdown: %v", err)
		}
	}()

	modelBase := fmt.Sprintf("%s/m/%s/%s/%s", base, lib, scenario, enc)
	ant := &anthropic.Anthropic{APIKey: "sk-ant-test-not-a-key", BaseURL: modelBase}
	g := genkit.Init(ctx, genkit.WithPlugins(
		&openai.OpenAI{APIKey: "sk-test-not-a-key", Opts: []option.RequestOption{option.WithBaseURL(modelBase + "/v1"), option.WithMaxRetries(0)}},
		ant,
	))
	if _, err := ant.DefineModel(g, "claude-sonnet-4-5", &ai.ModelOptions{
		Label:    "Claude Sonnet 4.5",
		Supports: &ai.ModelSupports{Multiturn: true, SystemRole: true, Tools: true, Media: false},
	}); err != nil {
		return fmt.Errorf("define anthropic model: %w", err)
	}
	type weatherIn struct {
		City string `json:"city"`
	}
	weather := genkit.DefineTool(g, "get_weather", "Current weather for a city",
		func(_ *ai.ToolContext, in weatherIn) (string, error) { return toolResult, nil })

	flow := genkit.DefineFlow(g, "weatherFlow", func(ctx context.Context, sc string) (string, error) {
		switch sc {
		case "tool-loop":
			resp, err := genkit.Generate(ctx, g, ai.WithModelName("openai/gpt-4o-mini"), ai.WithSystem(system), ai.WithPrompt(toolPrompt), ai.WithTools(weather))
			if err != nil {
				return "", err
			}
			return resp.Text(), nil
		case "stream", "stream-anthropic":
			var b strings.Builder
			model := "openai/gpt-4o-mini"
			if sc == "stream-anthropic" {
				model = "anthropic/claude-sonnet-4-5"
			}
			opts := []ai.GenerateOption{
				ai.WithModelName(model), ai.WithSystem(streamSystem()), ai.WithPrompt(streamPrompt),
				ai.WithStreaming(func(_ context.Context, c *ai.ModelResponseChunk) error {
					b.WriteString(c.Text())
					return nil
				}),
			}
			if sc == "stream-anthropic" {
				// The anthropic plugin refuses a request without max_tokens.
				opts = append(opts, ai.WithConfig(map[string]any{"max_tokens": 1024}))
			}
			resp, err := genkit.Generate(ctx, g, opts...)
			if err != nil {
				return "", err
			}
			if b.String() != resp.Text() {
				return "", fmt.Errorf("streamed %q but the response says %q", b.String(), resp.Text())
			}
			return resp.Text(), nil
		case "fail":
			_, err := genkit.Generate(ctx, g, ai.WithModelName("openai/gpt-4o-mini"), ai.WithPrompt(failPrompt))
			if err == nil {
				return "", errors.New("fail scenario did not fail")
			}
			return "", err
		case "embeddings":
			resp, err := genkit.Embed(ctx, g, ai.WithEmbedderName("openai/text-embedding-3-small"),
				ai.WithTextDocs("alpha is the first letter", "beta is the second letter", "gamma is the third letter"))
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d embeddings", len(resp.Embeddings)), nil
		}
		return "", fmt.Errorf("unknown scenario %q", sc)
	})
	out, err := flow.Run(ctx, scenario)
	if err != nil && scenario != "fail" {
		return err
	}
	if err != nil {
		out = "error: " + err.Error()
	}
	fmt.Fprintf(os.Stderr, "  -> %s\n", out)
	return nil
}
