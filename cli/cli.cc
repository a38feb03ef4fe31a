#include "cli/cli.h"
#include "cli/table.h"

#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include <google/protobuf/util/json_util.h>
#include <yaml-cpp/yaml.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace sluice::cli {
namespace {

nlohmann::json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) obj[kv.first.as<std::string>()] = YamlToJson(kv.second);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& v : node) arr.push_back(YamlToJson(v));
      return arr;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() == "!") return s;  // quoted in the source: keep a string
      if (s == "true" || s == "false") return s == "true";
      if (s == "null" || s == "~") return nullptr;
      try {
        size_t pos = 0;
        long long i = std::stoll(s, &pos);
        if (pos == s.size()) return i;
        double d = std::stod(s, &pos);
        if (pos == s.size()) return d;
      } catch (...) {
      }
      return s;
    }
    default:
      return nullptr;
  }
}

}  // namespace

Client::Client(const Options& options) : options_(options) {
  options_.auth_header = absl::AsciiStrToLower(options.auth_header);  // gRPC metadata keys
  // --ca/--cert/--key imply --tls.
  if (!options.tls.ca_file.empty() || !options.tls.cert_file.empty()) options_.tls.enabled = true;
  auto creds = auth::MakeChannelCredentials(options_.tls);
  if (!creds.ok()) std::exit(PrintError(creds.status()) + 1);
  if (!options.proxy_token_file.empty()) {
    auto token = auth::ReadFileToString(options.proxy_token_file, "--proxy-token-file");
    if (!token.ok()) std::exit(PrintError(token.status()) + 1);
    options_.proxy_token = *token;
    while (!options_.proxy_token.empty() &&
           (options_.proxy_token.back() == '\n' || options_.proxy_token.back() == '\r')) {
      options_.proxy_token.pop_back();
    }
  }
  channel_ = grpc::CreateChannel(options.host, *creds);
}

std::unique_ptr<grpc::ClientContext> Client::NewContext() const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!options_.email.empty()) ctx->AddMetadata(options_.auth_header, options_.email);
  if (!options_.token.empty()) ctx->AddMetadata("authorization", "Bearer " + options_.token);
  if (!options_.proxy_token.empty()) ctx->AddMetadata("x-sluice-proxy-token", options_.proxy_token);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return ctx;
}

absl::Status ReadMessageFile(const std::string& path, google::protobuf::Message* message,
                             const std::string& root_key) {
  std::string text;
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream in(path);
    if (!in) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot be read"));
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  nlohmann::json doc;
  try {
    doc = YamlToJson(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", e.what()));
  }
  if (!root_key.empty()) {
    if (!doc.is_object() || !doc.contains(root_key)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": missing root key \"", root_key, "\""));
    }
    doc = doc[root_key];
  }
  google::protobuf::util::JsonParseOptions opts;
  auto st = google::protobuf::util::JsonStringToMessage(doc.dump(), message, opts);
  if (!st.ok()) {
    // A plain YAML number in a string field (Guardian's grafana example has
    // `urn: 1`): proto3 JSON takes numeric fields as strings too, so the
    // numbers are tried again as strings.
    std::function<void(nlohmann::json&)> stringify = [&](nlohmann::json& j) {
      if (j.is_number()) j = j.dump();
      if (j.is_structured()) {
        for (auto& e : j) stringify(e);
      }
    };
    nlohmann::json again = doc;
    stringify(again);
    message->Clear();
    if (google::protobuf::util::JsonStringToMessage(again.dump(), message, opts).ok()) {
      return absl::OkStatus();
    }
  }
  if (!st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", std::string(st.message())));
  }
  return absl::OkStatus();
}

void PrintMessage(const google::protobuf::Message& message, const Options& options) {
  if (options.output == "table" && PrintTable(message, std::cout)) return;
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = true;
  opts.add_whitespace = !options.json;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(message, &out, opts);
  std::cout << out;
  if (out.empty() || out.back() != '\n') std::cout << "\n";
}

int PrintError(const grpc::Status& status) {
  std::cerr << "error: " << status.error_code() << ": " << status.error_message() << "\n";
  return 1;
}

int PrintError(const absl::Status& status) {
  std::cerr << "error: " << static_cast<int>(status.code()) << ": " << status.message() << "\n";
  return 1;
}

}  // namespace sluice::cli
