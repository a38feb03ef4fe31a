#include "integration/upstream_grpc.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <curl/curl.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace sluice::integration::upstream {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using nlohmann::json;

std::string UrlDecode(const std::string& s) {
  int n = 0;
  char* out = curl_easy_unescape(nullptr, s.c_str(), static_cast<int>(s.size()), &n);
  std::string decoded(out, n);
  curl_free(out);
  return decoded;
}

// The gateway's HTTP status for a gRPC code (gateway/errors.go).
long HttpStatus(grpc::StatusCode c) {
  switch (c) {
    case grpc::OK: return 200;
    case grpc::CANCELLED: return 499;
    case grpc::INVALID_ARGUMENT: case grpc::FAILED_PRECONDITION: case grpc::OUT_OF_RANGE: return 400;
    case grpc::DEADLINE_EXCEEDED: return 504;
    case grpc::NOT_FOUND: return 404;
    case grpc::ALREADY_EXISTS: case grpc::ABORTED: return 409;
    case grpc::PERMISSION_DENIED: return 403;
    case grpc::UNAUTHENTICATED: return 401;
    case grpc::RESOURCE_EXHAUSTED: return 429;
    case grpc::UNIMPLEMENTED: return 501;
    case grpc::UNAVAILABLE: return 503;
    default: return 500;
  }
}

// A query or path value as the JSON the field takes (grpc-gateway parses
// query values by the field's type).
json Coerce(const FieldDescriptor& f, const std::string& v) {
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      if (v == "true") return true;
      if (v == "false") return false;
      return v;
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      double d;
      if (absl::SimpleAtod(v, &d)) return d;
      return v;
    }
    default:
      return v;
  }
}

// Sets the field at dotted `name` ("config.type", "labels[team]") of the
// request JSON `req` of message `d` to `value`; a repeated field gains it.
// Returns "" or why it cannot.
std::string SetField(json* req, const Descriptor* d, const std::string& name,
                     const std::string& value) {
  std::vector<std::string> parts = absl::StrSplit(name, '.');
  json* node = req;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string part = parts[i], key;
    bool keyed = false;
    if (size_t open = part.find('['); open != std::string::npos && part.back() == ']') {
      key = part.substr(open + 1, part.size() - open - 2);
      part = part.substr(0, open);
      keyed = true;
    }
    const FieldDescriptor* f = d->FindFieldByName(part);
    for (int j = 0; f == nullptr && j < d->field_count(); ++j) {  // lowerCamel, as the gateway takes
      if (d->field(j)->json_name() == part) f = d->field(j);
    }
    if (f == nullptr) {
      return absl::StrCat("unknown field \"", part, "\" in ", d->name());
    }
    json& slot = (*node)[f->name()];
    if (f->is_map()) {
      if (!keyed) return absl::StrCat(name, ": a map field takes ", part, "[key]=value");
      slot[key] = Coerce(*f->message_type()->map_value(), value);
      return "";
    }
    if (i + 1 < parts.size()) {
      if (f->message_type() == nullptr) return absl::StrCat(name, ": ", part, " is not a message");
      node = &slot;
      d = f->message_type();
      continue;
    }
    if (f->is_repeated()) {
      if (!slot.is_array()) slot = json::array();
      slot.push_back(Coerce(*f, value));
    } else {
      slot = Coerce(*f, value);
    }
  }
  return "";
}

bool IsDefault(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) ||
         (v.is_number() && v.get<double>() == 0) || (v.is_string() && v.get<std::string>().empty()) ||
         (v.is_array() && v.empty()) || (v.is_object() && v.empty()) ||
         (v.is_string() && (v == "0" || v == "1970-01-01T00:00:00Z"));
}

void Compare(const json& g, const json* r, const std::string& at, std::vector<std::string>* out) {
  if (r == nullptr) {
    if (!IsDefault(g)) {
      out->push_back(absl::StrCat(at, ": grpc ", g.dump(), ", REST has no such field"));
    }
    return;
  }
  if (g.is_object() && r->is_object()) {
    for (auto it = g.begin(); it != g.end(); ++it) {
      auto peer = r->find(it.key());
      Compare(it.value(), peer == r->end() ? nullptr : &*peer,
              at.empty() ? it.key() : absl::StrCat(at, ".", it.key()), out);
    }
    return;
  }
  if (g.is_array() && r->is_array() && g.size() == r->size()) {
    for (size_t i = 0; i < g.size(); ++i) Compare(g[i], &(*r)[i], absl::StrCat(at, "[", i, "]"), out);
    return;
  }
  if (g != *r) out->push_back(absl::StrCat(at, ": grpc ", g.dump(), ", rest ", r->dump()));
}

}  // namespace

Client::Client(std::map<std::string, StubCall> calls, std::string proxy_token)
    : calls_(std::move(calls)), proxy_token_(std::move(proxy_token)) {
  std::ifstream in("integration/testdata/proton/http.json");
  bindings_ = json::parse(in, nullptr, /*allow_exceptions=*/false);
}

std::set<std::string> Client::NotCalled() const {
  std::set<std::string> services, missing;
  for (const auto& [key, call] : calls_) services.insert(key.substr(0, key.find('/')));
  for (const std::string& service : services) {
    const auto* svc =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
    for (int i = 0; svc != nullptr && i < svc->method_count(); ++i) {
      std::string key = absl::StrCat(service, "/", svc->method(i)->name());
      if (called_.count(key) == 0) missing.insert(key);
    }
  }
  return missing;
}

HttpResponse Client::Send(const std::string& rpc, const std::string& route, const std::string& path,
                          const json& body, const std::vector<std::string>& headers) {
  HttpResponse out;
  std::pair<std::string, std::string> verb_template = absl::StrSplit(route, ' ');
  // The service whose rpc `rpc` has this binding.
  std::string key;
  json binding;
  for (const auto& [k, call] : calls_) {
    if (k.substr(k.find('/') + 1) != rpc) continue;
    for (const json& b : bindings_.value(k, json::array())) {
      if (b["method"] == verb_template.first && b["path"] == verb_template.second) {
        key = k;
        binding = b;
      }
    }
  }
  if (binding.is_null()) {
    out.error = absl::StrCat(route, " is not an HTTP binding of a stubbed rpc ", rpc);
    return out;
  }
  const auto* method = google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
      absl::StrCat(key.substr(0, key.find('/')), ".", rpc));
  if (method == nullptr) {
    out.error = absl::StrCat("no descriptor for ", key);
    return out;
  }
  auto call = calls_.find(key);

  // The request JSON: the body first, then path variables and query.
  const Descriptor* in_type = method->input_type();
  json req = json::object();
  std::string body_field = binding["body"];
  if (!body.is_null()) {
    if (body_field == "*") {
      req = body;
    } else if (!body_field.empty()) {
      req[body_field] = body;
    }
  }
  std::pair<std::string, std::string> path_query = absl::StrSplit(path, absl::MaxSplits('?', 1));
  std::string p = path_query.first;
  if (p.rfind("/api/", 0) == 0) p = p.substr(4);
  std::vector<std::string> actual = absl::StrSplit(p, '/');
  std::vector<std::string> templ = absl::StrSplit(verb_template.second, '/');
  if (actual.size() != templ.size()) {
    out.error = absl::StrCat(p, " does not fit ", verb_template.second);
    return out;
  }
  for (size_t i = 0; i < templ.size(); ++i) {
    if (!templ[i].empty() && templ[i].front() == '{') {
      std::string var = templ[i].substr(1, templ[i].size() - 2);
      if (std::string why = SetField(&req, in_type, var, UrlDecode(actual[i])); !why.empty()) {
        out.error = why;
        return out;
      }
    } else if (templ[i] != actual[i]) {
      out.error = absl::StrCat(p, " does not fit ", verb_template.second);
      return out;
    }
  }
  for (absl::string_view kv : absl::StrSplit(path_query.second, '&', absl::SkipEmpty())) {
    std::pair<std::string, std::string> pair = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (std::string why = SetField(&req, in_type, UrlDecode(pair.first), UrlDecode(pair.second));
        !why.empty()) {
      out.error = why;
      return out;
    }
  }

  auto& factory = *google::protobuf::MessageFactory::generated_factory();
  std::unique_ptr<Message> request(factory.GetPrototype(in_type)->New());
  std::unique_ptr<Message> response(factory.GetPrototype(method->output_type())->New());
  if (auto st = google::protobuf::util::JsonStringToMessage(req.dump(), request.get()); !st.ok()) {
    out.error = absl::StrCat("the request does not fit ", in_type->name(), ": ",
                             std::string(st.message()));
    return out;
  }

  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  ctx.AddMetadata("x-sluice-proxy-token", proxy_token_);
  for (const std::string& h : headers) {
    std::pair<std::string, std::string> nv = absl::StrSplit(h, absl::MaxSplits(':', 1));
    std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(nv.first));
    if (name == "content-type") continue;
    ctx.AddMetadata(name, std::string(absl::StripAsciiWhitespace(nv.second)));
  }
  called_.insert(key);
  grpc::Status st = call->second(&ctx, *request, response.get());
  out.status = HttpStatus(st.error_code());
  if (!st.ok()) {
    out.body = json{{"code", static_cast<int>(st.error_code())},
                    {"message", st.error_message()},
                    {"details", json::array()}}
                   .dump();
    return out;
  }
  google::protobuf::util::JsonPrintOptions print;
  print.preserve_proto_field_names = true;
  print.always_print_primitive_fields = true;
  google::protobuf::util::MessageToJsonString(*response, &out.body, print);
  return out;
}

std::vector<std::string> CompareWithRest(const json& grpc_answer, const json& rest_answer) {
  std::vector<std::string> out;
  Compare(grpc_answer, &rest_answer, "", &out);
  return out;
}

std::function<HttpResponse(const json& row, const std::string& base,
                           const std::vector<std::string>& headers)>
RowsAsRpcs(Client* client, std::string root, std::vector<std::string>* diffs) {
  return [client, root, diffs](const json& row, const std::string& base,
                               const std::vector<std::string>& headers) {
    std::string path = base + row.value("path", "");
    json body = row.contains("body") ? row["body"] : json();
    HttpResponse r;
    try {
      std::string rpc = row.value("rpc", "");  // "ListSubscriptions (v1)": the rpc's name
      r = client->Send(rpc.substr(0, rpc.find(' ')), row.value("route", ""), path, body, headers);
    } catch (const std::exception& e) {  // a row the transcoding cannot read
      r.error = absl::StrCat("cannot send as an rpc: ", e.what());
      return r;
    }
    if (r.status == 200 && row.value("method", "") == "GET") {
      // Compare only a state that held still around the REST call (the
      // server's background work, such as deliveries, changes what a GET
      // reads): the rpc is asked again after REST, up to five times.
      std::vector<std::string> found;
      for (int attempt = 0; attempt < 5; ++attempt) {
        HttpResponse rest = Http("GET", root + path, "", headers);
        std::string rpc = row.value("rpc", "");
        HttpResponse again =
            client->Send(rpc.substr(0, rpc.find(' ')), row.value("route", ""), path, body, headers);
        found = CompareWithRest(r.Json(), rest.Json());
        if (again.body == r.body || found.empty()) break;
        r = again;
        absl::SleepFor(absl::Milliseconds(300));
      }
      for (const std::string& d : found) {
        diffs->push_back(absl::StrCat(row.value("rpc", ""), " ", path, ": ", d));
      }
    }
    return r;
  };
}

std::string Verdict(const Client& client, const std::vector<std::string>& rest_differences) {
  std::set<std::string> not_called = client.NotCalled();
  std::printf("%zu rpcs called through proton's stubs, %zu not called; %zu GET answers differ "
              "from REST\n",
              client.Called().size(), not_called.size(), rest_differences.size());
  std::fflush(stdout);
  std::vector<std::string> lines;
  if (!not_called.empty()) {
    lines.push_back(absl::StrCat("no row called: ", absl::StrJoin(not_called, ", ")));
  }
  lines.insert(lines.end(), rest_differences.begin(), rest_differences.end());
  return absl::StrJoin(lines, "\n");
}

}  // namespace sluice::integration::upstream
