// Receivers, subscriptions and templates on PostgreSQL.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/db/audit.h"
#include "server/notification/store/sql_util.h"
#include "server/notification/store/store.h"

namespace sluice::notification {

using namespace sqlutil;  // NOLINT: local helpers

namespace {

const std::string kReceiverCols = "id, name, type, labels::text, configurations::text, " +
                                  Micros("created_at") + ", " + Micros("updated_at") +
                                  ", allowed_senders::text, parent_id";

// allowed_senders (a JSONB array of strings) as text and back.
std::string SendersText(const std::vector<std::string>& list) { return nlohmann::json(list).dump(); }

std::vector<std::string> SendersFromText(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& v : JsonFromText(text)) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

Receiver ReceiverFromRow(const soci::row& row) {
  Receiver r;
  r.id = static_cast<uint64_t>(row.get<long long>(0));
  r.name = row.get<std::string>(1);
  r.type = row.get<std::string>(2);
  r.labels = LabelsFromText(row.get<std::string>(3));
  r.configurations = JsonFromText(row.get<std::string>(4));
  r.created_at = TimeFromMicros(row.get<long long>(5));
  r.updated_at = TimeFromMicros(row.get<long long>(6));
  r.allowed_senders = SendersFromText(row.get<std::string>(7));
  r.parent_id = static_cast<uint64_t>(row.get<long long>(8));
  return r;
}

nlohmann::json ReceiverAudit(const Receiver& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"type", r.type},
          {"labels", LabelsText(r.labels)},
          {"allowed_senders", r.allowed_senders},
          {"parent_id", r.parent_id}};
}

}  // namespace

absl::StatusOr<uint64_t> PostgresReceiverRepository::NextId() {
  long long id = 0;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    sql << "SELECT nextval(pg_get_serial_sequence('receivers', 'id'))", soci::into(id);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<uint64_t>(id);
}

absl::StatusOr<uint64_t> PostgresReceiverRepository::Create(const Receiver& r,
                                                            absl::string_view actor) {
  long long id = static_cast<long long>(r.id);
  absl::Status st = pool_->InTransaction([&](soci::session& sql) {
    std::string labels = LabelsText(r.labels), config = r.configurations.dump();
    std::string senders = SendersText(r.allowed_senders);
    long long parent = static_cast<long long>(r.parent_id);
    sql << "INSERT INTO receivers (id, name, type, labels, configurations, allowed_senders, "
           "parent_id) VALUES "
           "(COALESCE(NULLIF(:i, 0), nextval(pg_get_serial_sequence('receivers', 'id'))), "
           ":n, :t, CAST(:l AS jsonb), CAST(:c AS jsonb), CAST(:a AS jsonb), :p) RETURNING id",
        soci::use(id), soci::use(r.name), soci::use(r.type), soci::use(labels), soci::use(config),
        soci::use(senders), soci::use(parent), soci::into(id);
    Receiver audited = r;
    audited.id = id;
    db::WriteAuditLog(sql, "receiver.create", actor, ReceiverAudit(audited));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<uint64_t>(id);
}

absl::StatusOr<Receiver> PostgresReceiverRepository::Get(uint64_t id) {
  Receiver out;
  bool found = false;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long key = static_cast<long long>(id);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kReceiverCols << " FROM receivers WHERE id = :id",
         soci::use(key));
    for (const soci::row& row : rs) {
      out = ReceiverFromRow(row);
      found = true;
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!found) return absl::NotFoundError(absl::StrCat("receiver ", id, " not found"));
  return out;
}

absl::StatusOr<std::vector<Receiver>> PostgresReceiverRepository::List(const Labels& labels,
                                                                       const Page* page,
                                                                       int* total) {
  std::vector<Receiver> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string filter = LabelsText(labels);
    // The implicit id/type labels match like stored ones.
    const char* where =
        " FROM receivers WHERE (labels || jsonb_build_object('id', id::text, 'type', type)) @> "
        "CAST(:l AS jsonb)";
    if (total != nullptr) sql << "SELECT count(*)" << where, soci::use(filter), soci::into(*total);
    std::string tail = page == nullptr
                           ? ""
                           : absl::StrCat(" LIMIT ", page->size, " OFFSET ", page->offset);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kReceiverCols << where << " ORDER BY id" << tail,
         soci::use(filter));
    for (const soci::row& row : rs) out.push_back(ReceiverFromRow(row));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<Receiver>> PostgresReceiverRepository::MatchAny(
    const std::vector<Labels>& selectors) {
  std::vector<Receiver> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    nlohmann::json sels = nlohmann::json::array();
    for (const Labels& l : selectors) sels.push_back(nlohmann::json::parse(LabelsText(l)));
    std::string text = sels.dump();
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kReceiverCols
                     << " FROM receivers WHERE EXISTS (SELECT 1 FROM "
                        "jsonb_array_elements(CAST(:s AS jsonb)) sel WHERE (labels || "
                        "jsonb_build_object('id', id::text, 'type', type)) @> sel) ORDER BY id",
         soci::use(text));
    for (const soci::row& row : rs) out.push_back(ReceiverFromRow(row));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresReceiverRepository::Update(const Receiver& r, absl::string_view actor) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    std::string labels = LabelsText(r.labels), config = r.configurations.dump();
    std::string senders = SendersText(r.allowed_senders);
    long long key = static_cast<long long>(r.id);
    long long parent = static_cast<long long>(r.parent_id);
    soci::statement stmt =
        (sql.prepare << "UPDATE receivers SET name = :n, labels = CAST(:l AS jsonb), "
                        "configurations = CAST(:c AS jsonb), allowed_senders = CAST(:a AS jsonb), "
                        "parent_id = :p, updated_at = now() WHERE id = :id",
         soci::use(r.name), soci::use(labels), soci::use(config), soci::use(senders),
         soci::use(parent), soci::use(key));
    stmt.execute(true);
    if (Affected(stmt) == 0) return absl::NotFoundError(absl::StrCat("receiver ", r.id, " not found"));
    db::WriteAuditLog(sql, "receiver.update", actor, ReceiverAudit(r));
    return absl::OkStatus();
  });
}

absl::Status PostgresReceiverRepository::Delete(uint64_t id, absl::string_view actor) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    long long key = static_cast<long long>(id);
    std::vector<std::string> urns;
    soci::rowset<std::string> rs =
        (sql.prepare << "SELECT DISTINCT s.urn FROM subscription_receivers sr JOIN subscriptions s "
                        "ON s.id = sr.subscription_id WHERE sr.receiver_id = :id ORDER BY s.urn",
         soci::use(key));
    for (const std::string& u : rs) urns.push_back(u);
    if (!urns.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "receiver ", id, " is used by subscription(s) ", absl::StrJoin(urns, ", ")));
    }
    // Children (slack_channel, lark_channel) take their token from this one.
    std::vector<std::string> children;
    soci::rowset<long long> kids =
        (sql.prepare << "SELECT id FROM receivers WHERE parent_id = :id ORDER BY id", soci::use(key));
    for (long long k : kids) children.push_back(std::to_string(k));
    if (!children.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "receiver ", id, " is the parent_id of receiver(s) ", absl::StrJoin(children, ", "),
          ", which send with its credentials: delete them, or update them to another parent_id, "
          "first"));
    }
    soci::statement stmt = (sql.prepare << "DELETE FROM receivers WHERE id = :id", soci::use(key));
    stmt.execute(true);
    if (Affected(stmt) == 0) return absl::NotFoundError(absl::StrCat("receiver ", id, " not found"));
    db::WriteAuditLog(sql, "receiver.delete", actor, {{"id", id}});
    return absl::OkStatus();
  });
}

// ---- Subscriptions ----

namespace {

void InsertSubscriptionReceivers(soci::session& sql, long long sub_id, const Subscription& s) {
  sql << "DELETE FROM subscription_receivers WHERE subscription_id = :id", soci::use(sub_id);
  for (size_t i = 0; i < s.receivers.size(); ++i) {
    const SubscriptionReceiver& sr = s.receivers[i];
    int pos = static_cast<int>(i);
    long long rid = static_cast<long long>(sr.id);
    std::string conf = sr.configuration.dump(), labels = LabelsText(sr.labels);
    // A relation rewritten with the subscription keeps its times (0: now).
    long long created = absl::ToUnixMicros(sr.created_at);
    long long updated = absl::ToUnixMicros(sr.updated_at);
    sql << "INSERT INTO subscription_receivers (subscription_id, position, receiver_id, "
           "configuration, labels, created_at, updated_at) VALUES (:s, :p, :r, CAST(:c AS jsonb), "
           "CAST(:l AS jsonb), "
           "COALESCE(to_timestamp(CAST(NULLIF(CAST(:ca AS bigint), 0) AS double precision) / 1e6), now()), "
           "COALESCE(to_timestamp(CAST(NULLIF(CAST(:ua AS bigint), 0) AS double precision) / 1e6), now()))",
        soci::use(sub_id), soci::use(pos), soci::use(rid), soci::use(conf), soci::use(labels),
        soci::use(created), soci::use(updated);
  }
}

nlohmann::json SubscriptionAudit(const Subscription& s) {
  nlohmann::json receivers = nlohmann::json::array();
  for (const auto& r : s.receivers) receivers.push_back(r.id);
  return {{"id", s.id},
          {"urn", s.urn},
          {"receivers", receivers},
          {"match", LabelsText(s.match)},
          {"metadata", s.metadata},
          {"allowed_senders", s.allowed_senders}};
}

// The bound values of kSubscriptionWhere, in its placeholder order.
struct SubscriptionBinds {
  long long id = 0;  // 0: any
  long long ns = 0;  // 0: any
  std::string notification_match = "null";  // JSON object, or "null": no filter
  std::string match = "{}", metadata = "{}";
  long long receiver_id = 0;
  std::string receiver_labels = "{}";
};

SubscriptionBinds BindsOf(const SubscriptionFilter& f) {
  SubscriptionBinds b;
  b.ns = static_cast<long long>(f.namespace_id);
  if (f.notification_match) b.notification_match = LabelsText(*f.notification_match);
  b.match = LabelsText(f.match);
  b.metadata = LabelsText(f.metadata);
  b.receiver_id = static_cast<long long>(f.receiver_id);
  b.receiver_labels = LabelsText(f.receiver_labels);
  return b;
}

// Every filter part, each placeholder used once (SOCI binds by position):
// unset parts are neutral ({} is contained in every object; a null
// notification_match compares the match with itself).
const char kSubscriptionWhere[] =
    "CAST(:id AS bigint) IN (0, s.id) AND CAST(:ns AS bigint) IN (0, s.namespace_id) "
    "AND s.match <@ COALESCE(NULLIF(CAST(:nm AS jsonb), 'null'::jsonb), s.match) "
    "AND s.match @> CAST(:m AS jsonb) AND s.metadata @> CAST(:md AS jsonb) "
    "AND EXISTS (SELECT 1 FROM subscription_receivers f WHERE f.subscription_id = s.id "
    "AND CAST(:rid AS bigint) IN (0, f.receiver_id) AND f.labels @> CAST(:rl AS jsonb))";

// The subscriptions passing `b` (kSubscriptionWhere), by id, cut by `page`
// (nullptr: all), with their receivers.
std::vector<Subscription> LoadSubscriptions(soci::session& sql, SubscriptionBinds b,
                                            const Page* page = nullptr) {
  std::vector<Subscription> out;
  std::map<long long, size_t> index;
  std::string tail =
      page == nullptr ? "" : absl::StrCat(" LIMIT ", page->size, " OFFSET ", page->offset);
  soci::rowset<soci::row> rs =
      (sql.prepare << "SELECT s.id, s.urn, s.namespace_id, s.match::text, "
                   << Micros("s.created_at") << ", " << Micros("s.updated_at")
                   << ", s.allowed_senders::text, s.metadata::text, s.created_by, s.updated_by "
                      "FROM subscriptions s WHERE "
                   << kSubscriptionWhere << " ORDER BY s.id" << tail,
       soci::use(b.id), soci::use(b.ns), soci::use(b.notification_match), soci::use(b.match),
       soci::use(b.metadata), soci::use(b.receiver_id), soci::use(b.receiver_labels));
  for (const soci::row& row : rs) {
    Subscription s;
    s.id = static_cast<uint64_t>(row.get<long long>(0));
    s.urn = row.get<std::string>(1);
    s.namespace_id = static_cast<uint64_t>(row.get<long long>(2));
    s.match = LabelsFromText(row.get<std::string>(3));
    s.created_at = TimeFromMicros(row.get<long long>(4));
    s.updated_at = TimeFromMicros(row.get<long long>(5));
    s.allowed_senders = SendersFromText(row.get<std::string>(6));
    s.metadata = JsonFromText(row.get<std::string>(7));
    s.created_by = row.get<std::string>(8);
    s.updated_by = row.get<std::string>(9);
    index[row.get<long long>(0)] = out.size();
    out.push_back(std::move(s));
  }
  if (out.empty()) return out;
  nlohmann::json ids = nlohmann::json::array();
  for (const Subscription& s : out) ids.push_back(s.id);
  std::string id_list = ids.dump();
  soci::rowset<soci::row> rr =
      (sql.prepare << "SELECT sr.subscription_id, sr.receiver_id, sr.configuration::text, "
                      "sr.labels::text, "
                   << Micros("sr.created_at") << ", " << Micros("sr.updated_at")
                   << " FROM subscription_receivers sr WHERE sr.subscription_id IN (SELECT "
                      "CAST(x AS bigint) FROM jsonb_array_elements_text(CAST(:ids AS jsonb)) x) "
                      "ORDER BY sr.subscription_id, sr.position",
       soci::use(id_list));
  for (const soci::row& row : rr) {
    auto it = index.find(row.get<long long>(0));
    if (it == index.end()) continue;
    SubscriptionReceiver sr;
    sr.id = static_cast<uint64_t>(row.get<long long>(1));
    sr.configuration = JsonFromText(row.get<std::string>(2));
    sr.labels = LabelsFromText(row.get<std::string>(3));
    sr.created_at = TimeFromMicros(row.get<long long>(4));
    sr.updated_at = TimeFromMicros(row.get<long long>(5));
    out[it->second].receivers.push_back(std::move(sr));
  }
  return out;
}

}  // namespace

absl::StatusOr<uint64_t> PostgresSubscriptionRepository::Create(const Subscription& s,
                                                                absl::string_view actor) {
  long long id = 0;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    int taken = 0;
    sql << "SELECT count(*) FROM subscriptions WHERE urn = :u", soci::use(s.urn), soci::into(taken);
    if (taken > 0) {
      return absl::AlreadyExistsError(absl::StrCat("subscription urn \"", s.urn, "\" already exists"));
    }
    long long ns = static_cast<long long>(s.namespace_id);
    std::string match = LabelsText(s.match), senders = SendersText(s.allowed_senders);
    std::string metadata = s.metadata.is_object() ? s.metadata.dump() : "{}";
    sql << "INSERT INTO subscriptions (urn, namespace_id, match, allowed_senders, metadata, "
           "created_by, updated_by) VALUES (:u, :n, CAST(:m AS jsonb), CAST(:a AS jsonb), "
           "CAST(:md AS jsonb), :cb, :ub) RETURNING id",
        soci::use(s.urn), soci::use(ns), soci::use(match), soci::use(senders), soci::use(metadata),
        soci::use(s.created_by), soci::use(s.updated_by), soci::into(id);
    InsertSubscriptionReceivers(sql, id, s);
    Subscription audited = s;
    audited.id = id;
    db::WriteAuditLog(sql, "subscription.create", actor, SubscriptionAudit(audited));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return static_cast<uint64_t>(id);
}

absl::StatusOr<Subscription> PostgresSubscriptionRepository::Get(uint64_t id) {
  std::vector<Subscription> found;
  if (id == 0) return absl::NotFoundError("subscription 0 not found");
  absl::Status st = pool_->Run([&](soci::session& sql) {
    SubscriptionBinds b;
    b.id = static_cast<long long>(id);
    found = LoadSubscriptions(sql, b);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (found.empty()) return absl::NotFoundError(absl::StrCat("subscription ", id, " not found"));
  return found[0];
}

absl::StatusOr<std::vector<Subscription>> PostgresSubscriptionRepository::List(
    const SubscriptionFilter& filter, const Page* page, int* total) {
  std::vector<Subscription> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    SubscriptionBinds b = BindsOf(filter);
    if (total != nullptr) {
      sql << "SELECT count(*) FROM subscriptions s WHERE " << kSubscriptionWhere, soci::use(b.id),
          soci::use(b.ns), soci::use(b.notification_match), soci::use(b.match),
          soci::use(b.metadata), soci::use(b.receiver_id), soci::use(b.receiver_labels),
          soci::into(*total);
    }
    out = LoadSubscriptions(sql, b, page);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresSubscriptionRepository::Update(const Subscription& s, absl::string_view actor) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    int taken = 0;
    long long key = static_cast<long long>(s.id);
    sql << "SELECT count(*) FROM subscriptions WHERE urn = :u AND id <> :id", soci::use(s.urn),
        soci::use(key), soci::into(taken);
    if (taken > 0) {
      return absl::AlreadyExistsError(absl::StrCat("subscription urn \"", s.urn, "\" already exists"));
    }
    long long ns = static_cast<long long>(s.namespace_id);
    std::string match = LabelsText(s.match), senders = SendersText(s.allowed_senders);
    std::string metadata = s.metadata.is_object() ? s.metadata.dump() : "{}";
    // created_by is the creator's: an update never changes it.
    soci::statement stmt =
        (sql.prepare << "UPDATE subscriptions SET urn = :u, namespace_id = :n, "
                        "match = CAST(:m AS jsonb), allowed_senders = CAST(:a AS jsonb), "
                        "metadata = CAST(:md AS jsonb), updated_by = :ub, "
                        "updated_at = now() WHERE id = :id",
         soci::use(s.urn), soci::use(ns), soci::use(match), soci::use(senders),
         soci::use(metadata), soci::use(s.updated_by), soci::use(key));
    stmt.execute(true);
    if (Affected(stmt) == 0) {
      return absl::NotFoundError(absl::StrCat("subscription ", s.id, " not found"));
    }
    InsertSubscriptionReceivers(sql, key, s);
    db::WriteAuditLog(sql, "subscription.update", actor, SubscriptionAudit(s));
    return absl::OkStatus();
  });
}

absl::Status PostgresSubscriptionRepository::Delete(uint64_t id, absl::string_view actor) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    long long key = static_cast<long long>(id);
    soci::statement stmt =
        (sql.prepare << "DELETE FROM subscriptions WHERE id = :id", soci::use(key));
    stmt.execute(true);
    if (Affected(stmt) == 0) return absl::NotFoundError(absl::StrCat("subscription ", id, " not found"));
    db::WriteAuditLog(sql, "subscription.delete", actor, {{"id", id}});
    return absl::OkStatus();
  });
}

// ---- Templates ----

namespace {

const std::string kTemplateCols = "name, body, tags::text, variables::text, " +
                                  Micros("created_at") + ", " + Micros("updated_at") + ", engine";

Template TemplateFromRow(const soci::row& row) {
  Template t;
  t.name = row.get<std::string>(0);
  t.body = row.get<std::string>(1);
  for (const auto& tag : JsonFromText(row.get<std::string>(2))) {
    if (tag.is_string()) t.tags.push_back(tag.get<std::string>());
  }
  for (const auto& v : JsonFromText(row.get<std::string>(3))) {
    if (!v.is_object()) continue;
    auto field = [&](const char* k) {
      return v.contains(k) && v[k].is_string() ? v[k].get<std::string>() : std::string();
    };
    t.variables.push_back(
        TemplateVariable{field("name"), field("type"), field("default"), field("description")});
  }
  t.created_at = TimeFromMicros(row.get<long long>(4));
  t.updated_at = TimeFromMicros(row.get<long long>(5));
  t.engine = row.get<std::string>(6);
  return t;
}

}  // namespace

absl::Status PostgresTemplateRepository::Upsert(const Template& t, absl::string_view actor) {
  return pool_->InTransaction([&](soci::session& sql) {
    std::string tags = nlohmann::json(t.tags).dump();
    nlohmann::json vars = nlohmann::json::array();
    for (const auto& v : t.variables) {
      vars.push_back({{"name", v.name}, {"type", v.type}, {"default", v.default_value},
                      {"description", v.description}});
    }
    std::string vtext = vars.dump();
    std::string engine = t.engine.empty() ? "mustache" : t.engine;
    sql << "INSERT INTO templates (name, body, tags, variables, engine) VALUES (:n, :b, "
           "CAST(:t AS jsonb), CAST(:v AS jsonb), :e) ON CONFLICT (name) DO UPDATE SET "
           "body = EXCLUDED.body, tags = EXCLUDED.tags, variables = EXCLUDED.variables, "
           "engine = EXCLUDED.engine, updated_at = now()",
        soci::use(t.name), soci::use(t.body), soci::use(tags), soci::use(vtext), soci::use(engine);
    db::WriteAuditLog(sql, "template.upsert", actor, {{"name", t.name}});
    return absl::OkStatus();
  });
}

absl::StatusOr<Template> PostgresTemplateRepository::Get(absl::string_view name) {
  std::optional<Template> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string n(name);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kTemplateCols << " FROM templates WHERE name = :n",
         soci::use(n));
    for (const soci::row& row : rs) out = TemplateFromRow(row);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (!out) return absl::NotFoundError(absl::StrCat("template \"", name, "\" not found"));
  return *out;
}

absl::StatusOr<std::vector<Template>> PostgresTemplateRepository::List(absl::string_view tag) {
  std::vector<Template> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string filter = tag.empty() ? "[]" : nlohmann::json::array({std::string(tag)}).dump();
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kTemplateCols
                     << " FROM templates WHERE tags @> CAST(:t AS jsonb) ORDER BY name",
         soci::use(filter));
    for (const soci::row& row : rs) out.push_back(TemplateFromRow(row));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status PostgresTemplateRepository::Delete(absl::string_view name, absl::string_view actor) {
  return pool_->InTransaction([&](soci::session& sql) -> absl::Status {
    std::string n(name);
    soci::statement stmt = (sql.prepare << "DELETE FROM templates WHERE name = :n", soci::use(n));
    stmt.execute(true);
    if (Affected(stmt) == 0) return absl::NotFoundError(absl::StrCat("template \"", name, "\" not found"));
    db::WriteAuditLog(sql, "template.delete", actor, {{"name", n}});
    return absl::OkStatus();
  });
}

}  // namespace sluice::notification
