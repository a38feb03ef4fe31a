#include "sink/sinks/grpc/grpc_sink.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"
#include "openssl/err.h"
#include "openssl/pem.h"
#include "openssl/x509.h"
#include "spdlog/spdlog.h"

namespace sluice::sink {
namespace {

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  out.reserve(buffer.Length());
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// How many X.509 certificates `pem` holds (blocks of other kinds skipped);
// -1 when a CERTIFICATE block does not parse.
int CountCertificates(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return -1;
  int n = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_free(cert);
    ++n;
  }
  // The loop ends with PEM_R_NO_START_LINE at the end of the text; any
  // other error is a block that did not parse.
  unsigned long err = ERR_peek_last_error();  // NOLINT(runtime/int): OpenSSL's type
  bool clean = err == 0 || (ERR_GET_LIB(err) == ERR_LIB_PEM &&
                            ERR_GET_REASON(err) == PEM_R_NO_START_LINE);
  ERR_clear_error();
  BIO_free(bio);
  return clean ? n : -1;
}

// SINK_GRPC_ROOT_CA as PEM text. Firehose's GrpcSinkFactory base64-decodes
// it; PEM text and a file path are accepted too (a mounted secret).
absl::StatusOr<std::string> RootCaPem(absl::string_view value) {
  constexpr absl::string_view kVar = "SINK_GRPC_ROOT_CA";
  value = absl::StripAsciiWhitespace(value);
  std::string pem;
  std::string decoded;
  if (absl::StartsWith(value, "-----BEGIN")) {
    pem = std::string(value);
  } else if (absl::Base64Unescape(value, &decoded) && absl::StrContains(decoded, "-----BEGIN")) {
    pem = std::move(decoded);
  } else {
    std::ifstream in{std::string(value), std::ios::binary};
    if (!in) {
      return absl::InvalidArgumentError(absl::StrCat(
          kVar, " must be the base64 of a PEM CA certificate (as Firehose), PEM text, or a ",
          "readable PEM file; "", value.substr(0, 64), "" is none of these"));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    pem = ss.str();
  }
  int n = CountCertificates(pem);
  if (n <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        kVar, ": ", n < 0 ? "a PEM CERTIFICATE block does not parse" : "no PEM CERTIFICATE found"));
  }
  return pem;
}

// A positive number of ms from `name`, or `def` when unset.
absl::StatusOr<int64_t> PositiveMs(const Env& env, absl::string_view name, int64_t def) {
  auto v = env.GetDuration(name, absl::Milliseconds(def));
  if (!v.ok()) return v.status();
  if (*v <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a positive number of ms"));
  }
  return absl::ToInt64Milliseconds(*v);
}

// The TLS and keepalive variables, as Firehose's GrpcSinkFactory reads them.
absl::Status ReadChannelSettings(const Env& env, GrpcSinkConfig& c) {
  auto tls = env.GetBool("SINK_GRPC_TLS_ENABLE", false);
  if (!tls.ok()) return tls.status();
  c.tls = *tls;
  std::optional<std::string> root_ca = env.Get("SINK_GRPC_ROOT_CA");
  if (c.tls && root_ca.has_value()) {
    auto pem = RootCaPem(*root_ca);
    if (!pem.ok()) return pem.status();
    c.root_ca_pem = *std::move(pem);
  } else if (root_ca.has_value()) {
    spdlog::warn("SINK_GRPC_ROOT_CA is ignored: SINK_GRPC_TLS_ENABLE is false (plaintext), "
                 "as in Firehose");
  }
  auto time = PositiveMs(env, "SINK_GRPC_ARG_KEEPALIVE_TIME_MS", kGrpcKeepaliveOff);
  if (!time.ok()) return time.status();
  c.keepalive_time_ms = *time;
  auto timeout =
      PositiveMs(env, "SINK_GRPC_ARG_KEEPALIVE_TIMEOUT_MS", kDefaultGrpcKeepaliveTimeoutMs);
  if (!timeout.ok()) return timeout.status();
  c.keepalive_timeout_ms = *timeout;
  return absl::OkStatus();
}

}  // namespace

grpc::ChannelArguments GrpcChannelArguments(const GrpcSinkConfig& config) {
  grpc::ChannelArguments args;
  auto clamp = [](int64_t ms) { return static_cast<int>(std::min<int64_t>(ms, INT_MAX)); };
  if (config.keepalive_time_ms < INT_MAX) {
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS,
                clamp(std::max(config.keepalive_time_ms, kGrpcMinKeepaliveTimeMs)));
  }
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, clamp(config.keepalive_timeout_ms));
  return args;
}

absl::StatusOr<GrpcSinkConfig> GrpcSinkConfig::FromEnv(const Env& env, const SinkContext& ctx) {
  GrpcSinkConfig c;
  auto host = env.Require("SINK_GRPC_SERVICE_HOST");
  if (!host.ok()) return host.status();
  c.host = *host;
  auto port = env.RequirePort("SINK_GRPC_SERVICE_PORT");
  if (!port.ok()) return port.status();
  c.port = *port;
  auto method = env.Require("SINK_GRPC_METHOD_URL");
  if (!method.ok()) return method.status();
  absl::string_view m = absl::StripAsciiWhitespace(*method);
  absl::ConsumePrefix(&m, "/");
  std::vector<absl::string_view> parts = absl::StrSplit(m, '/');
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SINK_GRPC_METHOD_URL must be <package.Service>/<Method>, got \"", *method, "\""));
  }
  c.method = absl::StrCat("/", m);
  auto cls = env.Require("SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS");
  if (!cls.ok()) return cls.status();
  auto owned = ctx.ResolveDescriptor("SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS", *cls);
  if (!owned.ok()) return owned.status();
  c.owned_response = *std::move(owned);
  c.response = c.owned_response->get();
  const auto* success = c.response->FindFieldByName("success");
  if (success == nullptr || success->type() != google::protobuf::FieldDescriptor::TYPE_BOOL ||
      success->is_repeated()) {
    return absl::InvalidArgumentError(absl::StrCat("SINK_GRPC_RESPONSE_SCHEMA_PROTO_CLASS: ",
                                                   c.response->full_name(),
                                                   " has no bool field `success`"));
  }
  auto rule = GrpcRetryRule::FromEnv(env, c.response);
  if (!rule.ok()) return rule.status();
  c.retry_rule = *std::move(rule);
  auto deadline = env.GetInt("SINK_GRPC_ARG_DEADLINE_MS", kDefaultGrpcDeadlineMs);
  if (!deadline.ok()) return deadline.status();
  if (*deadline < 0) {
    return absl::InvalidArgumentError("SINK_GRPC_ARG_DEADLINE_MS must be a positive number of ms");
  }
  if (*deadline == 0) {
    // Firehose reads 0 as "no deadline": one hung call would then hold the
    // worker (and its consumer's max.poll budget) forever (review M4).
    spdlog::warn("SINK_GRPC_ARG_DEADLINE_MS=0 (no deadline in Firehose) is replaced by {} ms",
                 kDefaultGrpcDeadlineMs);
    *deadline = kDefaultGrpcDeadlineMs;
  }
  c.deadline_ms = *deadline;
  for (absl::string_view kv : env.GetList("SINK_GRPC_METADATA")) {
    size_t colon = kv.find(':');
    if (colon == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("SINK_GRPC_METADATA: \"", kv, "\" is not key:value"));
    }
    c.metadata.emplace_back(
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(kv.substr(0, colon))),
        std::string(absl::StripAsciiWhitespace(kv.substr(colon + 1))));
  }
  if (absl::Status s = ReadChannelSettings(env, c); !s.ok()) return s;
  return c;
}

GrpcSink::GrpcSink(GrpcSinkConfig config, Metrics* metrics)
    : config_(std::move(config)), metrics_(metrics) {}

absl::StatusOr<std::unique_ptr<GrpcSink>> GrpcSink::Create(GrpcSinkConfig config,
                                                           Metrics* metrics) {
  std::unique_ptr<GrpcSink> sink(new GrpcSink(std::move(config), metrics));
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (sink->config_.tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = sink->config_.root_ca_pem;  // empty: the system roots
    credentials = grpc::SslCredentials(ssl);
  }
  sink->channel_ = grpc::CreateCustomChannel(
      absl::StrCat(sink->config_.host, ":", sink->config_.port), credentials,
      GrpcChannelArguments(sink->config_));
  sink->stub_ = std::make_unique<grpc::GenericStub>(sink->channel_);
  sink->success_field_ = sink->config_.response->FindFieldByName("success");
  return sink;
}

std::vector<FailedMessage> GrpcSink::Prepare(const std::vector<Message>& batch) {
  // The request is the record's bytes as they are: nothing to convert.
  prepared_ = batch;
  return {};
}

std::vector<FailedMessage> GrpcSink::Execute() {
  struct Call {
    grpc::ClientContext context;
    grpc::ByteBuffer response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<grpc::ByteBuffer>> reader;
  };
  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<Call>> calls;
  calls.reserve(prepared_.size());
  for (size_t i = 0; i < prepared_.size(); ++i) {
    auto call = std::make_unique<Call>();
    call->context.set_deadline(std::chrono::system_clock::now() +
                               std::chrono::milliseconds(config_.deadline_ms > 0
                                                             ? config_.deadline_ms
                                                             : kDefaultGrpcDeadlineMs));
    for (const auto& [k, v] : config_.metadata) call->context.AddMetadata(k, v);
    const std::string& value = prepared_[i].value;
    grpc::Slice slice(value.data(), value.size());
    grpc::ByteBuffer request(&slice, 1);
    call->reader = stub_->PrepareUnaryCall(&call->context, config_.method, request, &cq);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, reinterpret_cast<void*>(i));
    calls.push_back(std::move(call));
  }
  std::vector<FailedMessage> failed;
  std::unique_ptr<google::protobuf::Message> response(
      factory_.GetPrototype(config_.response)->New());
  for (size_t done = 0; done < calls.size(); ++done) {
    void* tag;
    bool ok;
    if (!cq.Next(&tag, &ok)) break;
    size_t i = reinterpret_cast<size_t>(tag);
    Call& call = *calls[i];
    // A failed call (any status code, a deadline included) or an answer that
    // is not the response class: Firehose's GrpcClient.execute logs it and
    // answers an empty response (GrpcClient.java:75-86), whose success is
    // false, so the retry rule decides on that empty response
    // (GrpcSink.java:52-58): by default the retry type, DEFAULT_ERROR.
    auto fail_as_empty = [&](std::string cause) {
      response->Clear();
      std::string why;
      ErrorType type = config_.retry_rule.Classify(*response, &why);
      failed.push_back(FailedMessage{prepared_[i], type,
                                     why.empty() ? std::move(cause) : absl::StrCat(cause, "; ", why)});
    };
    if (!call.status.ok()) {
      fail_as_empty(absl::StrCat("grpc ", config_.method, ": code ", call.status.error_code(), ": ",
                                 call.status.error_message()));
      continue;
    }
    response->Clear();
    if (!response->ParseFromString(Flatten(call.response))) {
      fail_as_empty(absl::StrCat("grpc ", config_.method, ": response is not a ",
                                 config_.response->full_name()));
      continue;
    }
    if (!response->GetReflection()->GetBool(*response, success_field_)) {
      std::string text, why;
      google::protobuf::TextFormat::PrintToString(*response, &text);
      ErrorType type = config_.retry_rule.Classify(*response, &why);
      failed.push_back(FailedMessage{
          prepared_[i], type,
          absl::StrCat("grpc ", config_.method, ": success=false: ",
                       absl::StripTrailingAsciiWhitespace(text), why.empty() ? "" : "; ", why)});
    }
  }
  cq.Shutdown();
  void* tag;
  bool ok;
  while (cq.Next(&tag, &ok)) {
  }
  prepared_.clear();
  return failed;
}

}  // namespace sluice::sink
