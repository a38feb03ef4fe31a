// Command sluice-gateway is the REST/JSON sidecar of sluice-server: it
// transcodes HTTP requests to the server's gRPC API (grpc-gateway v1) and
// renders every error as an rpcStatus body {"code","message","details"}.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
)

func main() {
	httpPort := flag.Int("http_port", 8080, "HTTP listen port")
	backend := flag.String("backend", "127.0.0.1:8081", "sluice-server gRPC address (host:port)")
	flag.Parse()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	conn, err := grpc.DialContext(ctx, *backend, grpc.WithInsecure(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		log.Fatalf("sluice-gateway: dial %s: %v", *backend, err)
	}
	defer conn.Close()

	gw := newGatewayMux()
	if err := registerHandlers(ctx, gw, conn); err != nil {
		log.Fatalf("sluice-gateway: register handlers: %v", err)
	}

	root := http.NewServeMux()
	root.HandleFunc("/api/openapi.json", serveOpenAPI)
	root.Handle("/healthz", healthHandler(conn))
	root.Handle("/", gw)

	srv := &http.Server{
		Addr:              ":" + itoa(*httpPort),
		Handler:           logRequests(root),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		<-sig
		shutdownCtx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = srv.Shutdown(shutdownCtx)
	}()
	log.Printf("sluice-gateway: listening on :%d, backend %s", *httpPort, *backend)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatalf("sluice-gateway: %v", err)
	}
	log.Printf("sluice-gateway: stopped")
}
