// Command sluice-gateway is the REST/JSON sidecar of sluice-server: it
// transcodes HTTP requests to the server's gRPC API (grpc-gateway v2) and
// renders every error as an rpcStatus body {"code","message","details"}.
//
// It is the trusted hop of the server's `header` auth mode: it forwards the
// identity header set by the auth proxy in front of it (and nothing a client
// could use to impersonate someone else), and proves itself to the server
// with the shared proxy token and/or a TLS client certificate.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	slackv1 "sluice/gateway/gen/sluice/slack/v1"
)

type options struct {
	httpHost, backend                      string
	httpPort                               int
	authHeader, proxyTokenFile             string
	backendTLS                             bool
	backendCA, backendCert, backendKey     string
	maxBodyBytes                           int64
	allowedOrigins                         string
	readTimeout, writeTimeout, idleTimeout time.Duration
	metricsHost                            string
	metricsPort                            int
	slackInteractionsPath                  string
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func main() {
	var o options
	flag.StringVar(&o.httpHost, "http_host", "", "HTTP listen address (default: all interfaces)")
	flag.IntVar(&o.httpPort, "http_port", 8080, "HTTP listen port")
	flag.StringVar(&o.backend, "backend", "127.0.0.1:8081", "sluice-server gRPC address (host:port)")
	flag.StringVar(&o.authHeader, "auth_header", envOr("SLUICE_AUTH_HEADER", "X-Auth-Email"),
		"identity header set by the auth proxy, forwarded to the server (env SLUICE_AUTH_HEADER); must match the server's auth.header.identity_header")
	flag.StringVar(&o.proxyTokenFile, "proxy_token_file", os.Getenv("SLUICE_PROXY_TOKEN_FILE"),
		"file holding the shared proxy token sent to the server (env SLUICE_PROXY_TOKEN_FILE, or the token itself in SLUICE_PROXY_TOKEN)")
	flag.BoolVar(&o.backendTLS, "backend_tls", false, "connect to the server with TLS")
	flag.StringVar(&o.backendCA, "backend_ca", "", "CA certificate (PEM) that signed the server's certificate")
	flag.StringVar(&o.backendCert, "backend_cert", "", "client certificate (PEM) for mTLS to the server")
	flag.StringVar(&o.backendKey, "backend_key", "", "client key (PEM) for mTLS to the server")
	flag.Int64Var(&o.maxBodyBytes, "max_body_bytes", 4<<20, "largest accepted request body (bytes)")
	flag.StringVar(&o.allowedOrigins, "allowed_origins", os.Getenv("SLUICE_ALLOWED_ORIGINS"),
		"comma-separated origins (scheme://host[:port]) whose pages may write through the gateway (env SLUICE_ALLOWED_ORIGINS); default none: a write carrying any other Origin is refused (403)")
	flag.DurationVar(&o.readTimeout, "read_timeout", 30*time.Second, "time to read a whole request")
	flag.DurationVar(&o.writeTimeout, "write_timeout", 60*time.Second, "time to write a whole response")
	flag.DurationVar(&o.idleTimeout, "idle_timeout", 120*time.Second, "keep-alive idle time")
	flag.StringVar(&o.metricsHost, "metrics_host", "", "Prometheus /metrics listen address (default: all interfaces)")
	flag.IntVar(&o.metricsPort, "metrics_port", 9095, "Prometheus /metrics port, apart from the API's; 0: no metrics listener")
	flag.StringVar(&o.slackInteractionsPath, "slack_interactions_path", "/slack/interactions",
		"path of the Slack app's interactivity URL (Approve/Reject buttons; POST, form-encoded, forwarded to the server, which checks Slack's signature); empty: not served")
	flag.Parse()

	origins, err := parseAllowedOrigins(o.allowedOrigins)
	if err != nil {
		log.Fatalf("sluice-gateway: %v", err)
	}
	if err := checkSlackInteractionsPath(o.slackInteractionsPath); err != nil {
		log.Fatalf("sluice-gateway: %v", err)
	}
	token, err := proxyToken(o.proxyTokenFile)
	if err != nil {
		log.Fatalf("sluice-gateway: %v", err)
	}
	creds, err := backendCredentials(o)
	if err != nil {
		log.Fatalf("sluice-gateway: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopTracing, err := setupTracing(ctx)
	if err != nil {
		log.Fatalf("sluice-gateway: %v", err)
	}

	routes, err := loadRoutes(gatewayProtoFiles)
	if err != nil {
		log.Fatalf("sluice-gateway: routes: %v", err)
	}
	conn, err := grpc.DialContext(ctx, o.backend, creds,
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)),
		grpc.WithUnaryInterceptor(strictQueryInterceptor(routes)),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler()))
	if err != nil {
		log.Fatalf("sluice-gateway: dial %s: %v", o.backend, err)
	}
	defer conn.Close()

	gw := newGatewayMux(o.authHeader, token, routes.names)
	if err := registerHandlers(ctx, gw, conn); err != nil {
		log.Fatalf("sluice-gateway: register handlers: %v", err)
	}

	if o.metricsPort != 0 {
		serveMetrics(fmt.Sprintf("%s:%d", o.metricsHost, o.metricsPort))
	}
	root := http.NewServeMux()
	root.HandleFunc("/api/openapi.json", serveOpenAPI)
	root.HandleFunc("/docs", serveAPIDocs)
	root.HandleFunc("/docs/", serveAPIDocs)
	root.Handle("/healthz", healthHandler(conn))
	root.HandleFunc("/ping", pingHandler)
	root.Handle("/", writeGuard(origins, limitBody(o.maxBodyBytes, withHTTPRequest(gw))))
	fixedRoutes := map[string]bool{"/api/openapi.json": true, "/healthz": true, "/ping": true,
		"/docs": true, "/docs/redoc.standalone.js": true}
	if p := o.slackInteractionsPath; p != "" {
		// Its own rules instead of the writeGuard's (slack.go), on this one path.
		root.Handle(p, slackInteractionsHandler(p, origins, token, slackv1.NewSlackInteractionServiceClient(conn)))
		fixedRoutes[p] = true
	}

	srv := &http.Server{
		Addr:              fmt.Sprintf("%s:%d", o.httpHost, o.httpPort),
		Handler:           logRequests(observe(fixedRoutes, root)),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       o.readTimeout,
		WriteTimeout:      o.writeTimeout,
		IdleTimeout:       o.idleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		<-sig
		shutdownCtx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = srv.Shutdown(shutdownCtx)
	}()
	log.Printf("sluice-gateway: listening on %s, backend %s (tls=%v, proxy token=%v, identity header %s, %d allowed origins, Slack interactions at %q)",
		srv.Addr, o.backend, o.backendTLS, token != "", o.authHeader, len(origins), o.slackInteractionsPath)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatalf("sluice-gateway: %v", err)
	}
	flushCtx, flushed := context.WithTimeout(context.Background(), 5*time.Second)
	defer flushed()
	if err := stopTracing(flushCtx); err != nil {
		log.Printf("sluice-gateway: tracing: flushing spans at exit: %v", err)
	}
	log.Printf("sluice-gateway: stopped")
}

// proxyToken reads the shared token from `file`, or from env
// SLUICE_PROXY_TOKEN; "" when neither is set.
func proxyToken(file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("proxy token: %v", err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return os.Getenv("SLUICE_PROXY_TOKEN"), nil
}

func backendCredentials(o options) (grpc.DialOption, error) {
	if !o.backendTLS {
		if o.backendCA != "" || o.backendCert != "" {
			return nil, fmt.Errorf("--backend_ca/--backend_cert need --backend_tls")
		}
		return grpc.WithTransportCredentials(insecure.NewCredentials()), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.backendCA != "" {
		pem, err := os.ReadFile(o.backendCA)
		if err != nil {
			return nil, fmt.Errorf("--backend_ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--backend_ca: no PEM certificate in %s", o.backendCA)
		}
		cfg.RootCAs = pool
	}
	if (o.backendCert == "") != (o.backendKey == "") {
		return nil, fmt.Errorf("--backend_cert and --backend_key go together")
	}
	if o.backendCert != "" {
		pair, err := tls.LoadX509KeyPair(o.backendCert, o.backendKey)
		if err != nil {
			return nil, fmt.Errorf("--backend_cert/--backend_key: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return grpc.WithTransportCredentials(credentials.NewTLS(cfg)), nil
}
