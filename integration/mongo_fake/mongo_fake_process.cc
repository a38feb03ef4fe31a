#include "integration/mongo_fake/mongo_fake_process.h"

#include <mongoc/mongoc.h>

#include <mutex>

#include "absl/strings/str_cat.h"

namespace sluice::integration {
namespace {

std::once_flag init_once;

nlohmann::json ToJson(const bson_t* b) {
  size_t len = 0;
  char* text = bson_as_relaxed_extended_json(b, &len);
  nlohmann::json out = nlohmann::json::parse(text, text + len, nullptr, false);
  bson_free(text);
  return out;
}

// JSON → BSON (extended JSON accepted); an empty document on bad input.
template <typename J>
bson_t* ToBson(const J& j) {
  std::string text = j.dump();
  bson_error_t error;
  bson_t* b = bson_new_from_json(reinterpret_cast<const uint8_t*>(text.data()), text.size(), &error);
  return b != nullptr ? b : bson_new();
}

}  // namespace

absl::StatusOr<std::unique_ptr<MongoFake>> MongoFake::Start() {
  std::call_once(init_once, [] { mongoc_init(); });
  std::unique_ptr<MongoFake> fake(new MongoFake());
  fake->port_ = FreePort();
  auto p = Process::Start({"/usr/bin/python3", Runfile("integration/mongo_fake/mongo_fake.py"),
                           "--port", std::to_string(fake->port_)});
  if (!p.ok()) return p.status();
  fake->process_ = std::move(*p);
  if (auto st = WaitForPort(fake->port_, absl::Seconds(20)); !st.ok()) return st;
  std::string uri = absl::StrCat("mongodb://", fake->address(),
                                 "/?serverSelectionTimeoutMS=5000&connectTimeoutMS=2000&retryWrites=false");
  fake->client_ = mongoc_client_new(uri.c_str());
  if (fake->client_ == nullptr) return absl::InternalError("mongoc_client_new failed");
  mongoc_client_set_error_api(fake->client_, MONGOC_ERROR_API_VERSION_2);
  nlohmann::json pong = fake->Command("admin", {{"ping", 1}});
  if (pong.value("ok", 0.0) != 1.0) {
    return absl::UnavailableError(absl::StrCat("mongo_fake did not answer ping: ", pong.dump()));
  }
  return fake;
}

MongoFake::~MongoFake() {
  if (client_ != nullptr) mongoc_client_destroy(client_);
}

std::string MongoFake::address() const { return absl::StrCat("127.0.0.1:", port_); }

nlohmann::json MongoFake::Command(const std::string& db, const nlohmann::ordered_json& command) {
  bson_t* cmd = ToBson(command);
  bson_t reply;
  bson_error_t error;
  bool ok = mongoc_client_command_simple(client_, db.c_str(), cmd, nullptr, &reply, &error);
  bson_destroy(cmd);
  nlohmann::json out = ok ? ToJson(&reply)
                          : nlohmann::json{{"ok", 0.0}, {"errmsg", error.message}, {"code", error.code}};
  bson_destroy(&reply);
  return out;
}

std::vector<nlohmann::json> MongoFake::Find(const std::string& db, const std::string& coll,
                                            const nlohmann::json& filter) {
  std::vector<nlohmann::json> out;
  mongoc_collection_t* c = mongoc_client_get_collection(client_, db.c_str(), coll.c_str());
  bson_t* f = ToBson(filter);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(c, f, nullptr, nullptr);
  const bson_t* doc = nullptr;
  while (mongoc_cursor_next(cursor, &doc)) out.push_back(ToJson(doc));
  mongoc_cursor_destroy(cursor);
  bson_destroy(f);
  mongoc_collection_destroy(c);
  return out;
}

void MongoFake::FailIds(const std::vector<std::string>& ids, int code, const std::string& errmsg) {
  Command("admin", {{"sluiceFakeFail", 1}, {"ids", ids}, {"code", code}, {"errmsg", errmsg}});
}

void MongoFake::Outage(int ms) { Command("admin", {{"sluiceFakeOutage", ms}}); }

void MongoFake::Drop(const std::string& db, const std::string& coll) {
  Command(db, {{"drop", coll}});
}

}  // namespace sluice::integration
