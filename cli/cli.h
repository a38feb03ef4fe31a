// sluicectl plumbing shared by every command group: the gRPC channel, the
// caller identity, reading YAML/JSON files into protos, and printing.
#ifndef SLUICE_CLI_CLI_H_
#define SLUICE_CLI_CLI_H_

#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/auth/tls.h"

namespace sluice::cli {

// Global options (flags before or after the command).
struct Options {
  std::string host = "127.0.0.1:8081";  // --host, or env SLUICE_HOST
  // --email, or env SLUICE_EMAIL: the identity header (header and
  // insecure_dev modes), sent as `auth_header` metadata.
  std::string email;
  std::string auth_header = "x-auth-email";  // --auth-header, or env SLUICE_AUTH_HEADER
  // --token, or env SLUICE_TOKEN: a bearer token (the JWT in jwt mode), sent
  // as `authorization: Bearer <token>`.
  std::string token;
  // --proxy-token-file, or env SLUICE_PROXY_TOKEN (the value): the shared
  // proxy token of header mode, sent as x-sluice-proxy-token.
  std::string proxy_token_file;
  std::string proxy_token;
  auth::TlsClientOptions tls;  // --tls, --ca, --cert, --key
  bool json = false;           // --json: print compact JSON instead of indented
  // --output json|table: "table" prints a list response as columns (see
  // cli/table.h); other responses stay JSON.
  std::string output = "json";
};

// A connection to sluice-server. A bad TLS or proxy-token option prints the
// error and exits with code 2.
class Client {
 public:
  explicit Client(const Options& options);
  std::shared_ptr<grpc::Channel> channel() const { return channel_; }
  // A context carrying the identity header, bearer token and proxy token
  // (those set) and a 30 s deadline.
  std::unique_ptr<grpc::ClientContext> NewContext() const;

 private:
  Options options_;
  std::shared_ptr<grpc::Channel> channel_;
};

// Reads `path` ("-" for stdin) as YAML or JSON (JSON is YAML) and converts it
// into `message` with proto field names. When `root_key` is non-empty the
// document's value under that key is used (e.g. "payload").
// InvalidArgument naming the file and the problem.
absl::Status ReadMessageFile(const std::string& path, google::protobuf::Message* message,
                             const std::string& root_key = "");

// Prints `message` as JSON (proto field names, defaults included), or as a
// table when options.output is "table" and `message` holds a list.
void PrintMessage(const google::protobuf::Message& message, const Options& options);

// Prints "error: <code>: <message>" to stderr and returns the exit code (1).
int PrintError(const grpc::Status& status);
int PrintError(const absl::Status& status);

// Calls unary RPC `method` of gRPC service `Service` with `req` and prints the
// response, or prints the error and sets `*exit_code` to 1. Usage:
//   CallAndPrint<pb::GrantService>(options, exit_code, req, &pb::GrantService::Stub::GetGrant);
template <typename Service, typename Req, typename Resp>
void CallAndPrint(const Options& options, int* exit_code, const Req& req,
                  grpc::Status (Service::Stub::*method)(grpc::ClientContext*, const Req&, Resp*)) {
  Client client(options);
  auto stub = Service::NewStub(client.channel());
  auto ctx = client.NewContext();
  Resp resp;
  grpc::Status st = ((*stub).*method)(ctx.get(), req, &resp);
  if (!st.ok()) {
    *exit_code = PrintError(st);
    return;
  }
  PrintMessage(resp, options);
}

// A command group adds its subcommands to `app`; the callbacks set `*exit_code`.
using CommandGroup = void (*)(CLI::App& app, const Options& options, int* exit_code);

}  // namespace sluice::cli

#endif  // SLUICE_CLI_CLI_H_
