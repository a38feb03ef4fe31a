// Starts integration/mongo_fake/mongo_fake.py (Debian's /usr/bin/python3 with
// python3-pymongo's bson) on a free loopback port, and talks to it with
// libmongoc: control commands (injected write errors, outages) and reading
// documents back. See mongo_fake.py's docstring for what the fake speaks.
#ifndef SLUICE_INTEGRATION_MONGO_FAKE_MONGO_FAKE_PROCESS_H_
#define SLUICE_INTEGRATION_MONGO_FAKE_MONGO_FAKE_PROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "integration/process.h"
#include "nlohmann/json.hpp"

typedef struct _mongoc_client_t mongoc_client_t;

namespace sluice::integration {

class MongoFake {
 public:
  // Starts the fake; ready when it answers ping (Unavailable otherwise, e.g.
  // when python3-pymongo is missing).
  static absl::StatusOr<std::unique_ptr<MongoFake>> Start();
  ~MongoFake();

  int port() const { return port_; }
  // "127.0.0.1:<port>", the form of SINK_MONGO_CONNECTION_URLS.
  std::string address() const;
  // Runs `command` (relaxed extended JSON, the command name first: hence
  // ordered_json) on database `db`; the reply as
  // JSON (relaxed extended JSON), or {"ok":0,"errmsg":...} when it failed.
  nlohmann::json Command(const std::string& db, const nlohmann::ordered_json& command);
  // Every document of db.coll with `filter` (equality), in insertion order.
  std::vector<nlohmann::json> Find(const std::string& db, const std::string& coll,
                                   const nlohmann::json& filter = nlohmann::json::object());
  // Later writes of these string _ids fail with writeError {code, errmsg};
  // an empty list clears.
  void FailIds(const std::vector<std::string>& ids, int code, const std::string& errmsg);
  // Closes every connection and refuses new ones for `ms` milliseconds.
  void Outage(int ms);
  // Drops db.coll (ignores "ns not found").
  void Drop(const std::string& db, const std::string& coll);

 private:
  MongoFake() = default;
  int port_ = 0;
  std::unique_ptr<Process> process_;
  mongoc_client_t* client_ = nullptr;
};

}  // namespace sluice::integration

#endif  // SLUICE_INTEGRATION_MONGO_FAKE_MONGO_FAKE_PROCESS_H_
