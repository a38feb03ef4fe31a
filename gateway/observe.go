package main

// Observability of the gateway: Prometheus metrics on their own port, and
// OpenTelemetry traces (issue 43).
//
//   - Metrics: sluice_gateway_requests_total{route,method,code} and
//     sluice_gateway_request_duration_seconds{route,method}. `route` is the
//     matched google.api.http template ("/api/v1beta1/appeals/{id}"), one of
//     the gateway's own paths, or "unmatched", so its cardinality is bounded
//     by the API, never by what clients send.
//   - Traces: every request starts a span, or continues the caller's W3C
//     traceparent, named "<METHOD> <route>"; the call to sluice-server is a
//     child span whose traceparent travels as gRPC metadata (otelgrpc), so
//     the server's logs and audit rows carry the same trace id. Spans are
//     exported over OTLP/gRPC only when OTEL_EXPORTER_OTLP_ENDPOINT (or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set; the SDK reads the standard
//     OTEL_* variables (sampler, batch sizes, timeouts, headers). The batch
//     queue is bounded (OTEL_BSP_MAX_QUEUE_SIZE, 2048): a collector that is
//     down costs dropped spans, never a request.

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// unmatchedRoute labels requests that no route served.
const unmatchedRoute = "unmatched"

var (
	registry = prometheus.NewRegistry()

	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_gateway_requests_total",
		Help: "REST requests served, by route template, HTTP method and HTTP status code.",
	}, []string{"route", "method", "code"})

	requestSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sluice_gateway_request_duration_seconds",
		Help:    "Time from a REST request's headers to its last byte written, by route template and HTTP method.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route", "method"})
)

func init() {
	registry.MustRegister(requestsTotal, requestSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// routeKey holds a *string in a request's context: observe's wrapper puts
// it there, the mux's middleware (recordRoute) writes the matched template.
type routeKey struct{}

// recordRoute is a runtime.Middleware: it runs after the mux has matched a
// route, writes the route's template where observe reads it, and names the
// request's span after it.
func recordRoute(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, pathParams map[string]string) {
		if pattern, ok := runtime.HTTPPattern(r.Context()); ok {
			// "{id=*}" is how runtime.Pattern writes the proto's "{id}".
			route := strings.ReplaceAll(pattern.String(), "=*}", "}")
			if p, ok := r.Context().Value(routeKey{}).(*string); ok {
				*p = route
			}
			span := trace.SpanFromContext(r.Context())
			span.SetName(r.Method + " " + route)
			span.SetAttributes(attribute.String("http.route", route))
		}
		next(w, r, pathParams)
	}
}

// observe wraps the gateway's whole handler: one span per request (see the
// file comment) and the two metrics. fixed maps the gateway's own paths
// (/healthz, /ping, ...) to their route label.
func observe(fixed map[string]bool, next http.Handler) http.Handler {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		route := unmatchedRoute
		if fixed[r.URL.Path] {
			route = r.URL.Path
			trace.SpanFromContext(r.Context()).SetName(r.Method + " " + route)
		}
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey{}, &route)))
		method := metricMethod(r.Method)
		requestsTotal.WithLabelValues(route, method, strconv.Itoa(rec.code)).Inc()
		requestSeconds.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
	})
	return otelhttp.NewHandler(inner, "sluice-gateway",
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
}

// metricMethod bounds the method label to the methods HTTP defines.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// serveMetrics serves /metrics on addr until the process exits; a port that
// cannot be bound stops the gateway (it was asked for).
func serveMetrics(addr string) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Fatalf("sluice-gateway: metrics on %s: %v", addr, err)
		}
	}()
}

// setupTracing installs the global tracer provider and the W3C traceparent
// propagator. Spans are exported over OTLP/gRPC when the standard endpoint
// variables say where; without them the gateway still creates and
// propagates trace ids, and exports nothing. The returned function flushes
// what is queued, within ctx.
func setupTracing(ctx context.Context) (func(context.Context) error, error) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	// Later sources win: OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME
	// (WithFromEnv) override the default name.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "sluice-gateway")),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %v", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	exporting := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" ||
		os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	if exporting {
		exp, err := otlptracegrpc.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %v", err)
		}
		// Batching reads OTEL_BSP_*; its queue is bounded and drops when full.
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetTracerProvider(tp)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Printf("sluice-gateway: tracing: %v", err)
	}))
	log.Printf("sluice-gateway: tracing: W3C traceparent propagated; OTLP export %s",
		map[bool]string{true: "on", false: "off (OTEL_EXPORTER_OTLP_ENDPOINT unset)"}[exporting])
	return tp.Shutdown, nil
}
