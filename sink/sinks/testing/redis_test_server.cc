#include "sink/sinks/testing/redis_test_server.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "sink/sinks/testing/server_process.h"

namespace sluice::sink::testing {

absl::StatusOr<std::unique_ptr<RedisTestServer>> RedisTestServer::Start(bool cluster) {
  auto s = std::unique_ptr<RedisTestServer>(new RedisTestServer());
  s->port_ = FreeLoopbackPort();
  std::string port = std::to_string(s->port_);
  // The cluster bus would listen on port + 10000, which may not exist: name a
  // free one (cluster-port, Redis 7).
  std::string bus = std::to_string(FreeLoopbackPort());
  std::string dir = PrivateDir("redis-" + port);
  s->argv_ = {"redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
              "--appendonly", "no", "--loglevel", "warning", "--dir", dir,
              "--cluster-enabled", cluster ? "yes" : "no", "--cluster-config-file",
              "nodes.conf", "--cluster-port", bus};
  if (absl::Status st = s->Restart(); !st.ok()) return st;
  return s;
}

absl::Status RedisTestServer::Restart() {
  KillAndReap(&pid_);
  pid_ = SpawnQuiet(argv_);
  if (pid_ < 0) return absl::UnavailableError("fork failed");
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (absl::Now() < give_up) {
    if (Cli({"PING"}) == "PONG") return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::UnavailableError(
      absl::StrCat("redis-server did not answer on port ", port_, " (is it installed?)"));
}

RedisTestServer::~RedisTestServer() { Kill(); }

void RedisTestServer::Kill() { KillAndReap(&pid_); }

std::string RedisTestServer::address() const { return absl::StrCat("127.0.0.1:", port_); }

std::string RedisTestServer::Cli(const std::vector<std::string>& args) const {
  std::string cmd = absl::StrCat("redis-cli -p ", port_);
  for (const std::string& a : args) absl::StrAppend(&cmd, " ", ShellQuote(a));
  absl::StrAppend(&cmd, " 2>/dev/null");
  return std::string(absl::StripSuffix(RunShell(cmd), "\n"));
}

absl::StatusOr<std::unique_ptr<RedisTestCluster>> RedisTestCluster::Start(int n) {
  auto c = std::unique_ptr<RedisTestCluster>(new RedisTestCluster());
  std::vector<std::string> create = {"--cluster", "create"};
  for (int i = 0; i < n; ++i) {
    auto node = RedisTestServer::Start(/*cluster=*/true);
    if (!node.ok()) return node.status();
    create.push_back((*node)->address());
    c->nodes_.push_back(*std::move(node));
  }
  create.insert(create.end(), {"--cluster-replicas", "0", "--cluster-yes"});
  c->nodes_[0]->Cli(create);
  absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (absl::Now() < give_up) {
    bool ok = true;
    for (auto& node : c->nodes_) {
      ok = ok && node->Cli({"CLUSTER", "INFO"}).find("cluster_state:ok") != std::string::npos;
    }
    if (ok) return c;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::UnavailableError("the test Redis Cluster did not reach cluster_state:ok");
}

std::string RedisTestCluster::addresses() const {
  std::string out;
  for (const auto& node : nodes_) absl::StrAppend(&out, out.empty() ? "" : ",", node->address());
  return out;
}

int RedisTestCluster::OwnerOf(const std::string& key) {
  std::string slot = nodes_[0]->Cli({"CLUSTER", "KEYSLOT", key});
  for (int i = 0; i < size(); ++i) {
    // CLUSTER COUNTKEYSINSLOT answers anywhere; GETKEYSINSLOT too. Ownership:
    // the node's own CLUSTER NODES line ("myself") lists its slot ranges.
    std::string nodes = nodes_[i]->Cli({"CLUSTER", "NODES"});
    for (absl::string_view line : absl::StrSplit(nodes, '\n')) {
      if (line.find("myself") == absl::string_view::npos) continue;
      std::vector<std::string> fields = absl::StrSplit(line, ' ');
      int want = std::stoi(slot);
      for (size_t f = 8; f < fields.size(); ++f) {
        std::vector<std::string> range = absl::StrSplit(fields[f], '-');
        int lo = std::stoi(range[0]);
        int hi = range.size() > 1 ? std::stoi(range[1]) : lo;
        if (want >= lo && want <= hi) return i;
      }
    }
  }
  return -1;
}

void RedisTestCluster::MoveEmptySlot(int slot, int to) {
  std::string id = nodes_[to]->Cli({"CLUSTER", "MYID"});
  for (auto& node : nodes_) node->Cli({"CLUSTER", "SETSLOT", std::to_string(slot), "NODE", id});
}

}  // namespace sluice::sink::testing
