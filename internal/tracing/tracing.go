// Package tracing is Sello's OpenTelemetry tracing (docs/tracing.md): the
// process's tracer provider, which exports spans over OTLP/HTTP when an
// endpoint is configured and does not exist otherwise; the correlation id
// that a request or a job carries in its context; the W3C trace context
// that a job carries from the code that queued it; and a log handler that
// writes both into every log line.
//
// Only the roots of work (the API's requests, the jobs' runs) are given the
// provider. Everything below them starts its spans with Start, which takes
// the provider from the context's span: code called outside a recorded
// trace, tracing off included, creates nothing and pays one context lookup.
package tracing

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of Sello's spans.
const Scope = "github.com/sello-do/sello"

// ServiceName is the service.name of Sello's spans (OTEL_SERVICE_NAME
// overrides it).
const ServiceName = "sello"

// EndpointEnv is the standard variable that names the OTLP endpoint when
// the --otlp-endpoint flag does not.
const EndpointEnv = "OTEL_EXPORTER_OTLP_ENDPOINT"

// Config says where the process's spans go.
type Config struct {
	// Endpoint is the OTLP/HTTP receiver: a base URL such as
	// http://localhost:4318, to which /v1/traces is added, or the full URL
	// of its traces path. "" turns tracing off.
	Endpoint string
	// Version is Sello's version, the spans' service.version.
	Version string
}

// Provider is the process's tracer provider, with its exporter. The zero
// value and a nil *Provider are tracing off.
type Provider struct {
	sdk *sdktrace.TracerProvider
}

// New returns the provider cfg asks for: off (no provider, no exporter)
// when cfg.Endpoint is "", else one that batches spans to the endpoint.
// Sampling follows OTEL_TRACES_SAMPLER (default: every trace, and every
// child as its parent). Nothing is dialed before the first export. Returns
// the endpoint's error (see ParseEndpoint).
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Endpoint == "" {
		return &Provider{}, nil
	}
	u, err := ParseEndpoint(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u))
	if err != nil {
		return nil, fmt.Errorf("otlp exporter: %w", err)
	}
	// Sello's attributes first: OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES, read after them, win.
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(ServiceName), semconv.ServiceVersion(cfg.Version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	return &Provider{sdk: sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))}, nil
}

// ParseEndpoint checks an OTLP/HTTP endpoint and returns the URL its spans
// are posted to: endpoint itself when it has a path, else endpoint with
// /v1/traces. Returns an error for anything but an http or https URL with
// a host.
func ParseEndpoint(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("OTLP endpoint %q: want an http or https URL such as http://localhost:4318", endpoint)
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Enabled reports whether spans are recorded and exported.
func (p *Provider) Enabled() bool { return p != nil && p.sdk != nil }

// TracerProvider returns the provider of the roots' tracers, nil when
// tracing is off: a nil provider is how the roots know to do nothing.
func (p *Provider) TracerProvider() trace.TracerProvider {
	if !p.Enabled() {
		return nil
	}
	return p.sdk
}

// Shutdown exports the spans still buffered, within ctx, and stops the
// exporter. It does nothing when tracing is off.
func (p *Provider) Shutdown(ctx context.Context) error {
	if !p.Enabled() {
		return nil
	}
	if err := p.sdk.Shutdown(ctx); err != nil {
		return fmt.Errorf("flush traces: %w", err)
	}
	return nil
}

// Attribute keys of Sello's spans (docs/tracing.md lists them all).
const (
	// AttrCorrelationID is the correlation id of the request, or of the
	// request that queued a job.
	AttrCorrelationID = attribute.Key("sello.correlation_id")
	// AttrEnvironment is the environment of the work: TesteCF, CerteCF or
	// eCF.
	AttrEnvironment = attribute.Key("sello.environment")
	// AttrTenantID is the tenant's id.
	AttrTenantID = attribute.Key("sello.tenant_id")
	// AttrDocumentID is the id of the document worked on.
	AttrDocumentID = attribute.Key("sello.document_id")
	// AttrENCF is the e-NCF of the document worked on.
	AttrENCF = attribute.Key("sello.encf")
	// AttrStatus is the status a step left the document in.
	AttrStatus = attribute.Key("sello.status")
	// AttrDelivery is the outcome of a delivery to the buyer: delivered,
	// failed or not_electronic.
	AttrDelivery = attribute.Key("sello.delivery")
)
