// Alerts and silences on PostgreSQL. Optional filters bind each placeholder
// once (SOCI): an empty or zero value turns its condition into "any".
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/notification/store/sql_util.h"
#include "server/notification/store/store.h"

namespace sluice::notification {

using namespace sqlutil;  // NOLINT: local helpers

namespace {

double Seconds(absl::Time t) { return absl::ToDoubleSeconds(t - absl::UnixEpoch()); }

// A PostgreSQL text[] literal of `ids` (UUIDs and test ids: no quotes inside).
std::string TextArray(const std::vector<std::string>& ids) {
  std::vector<std::string> quoted;
  for (const std::string& id : ids) quoted.push_back(absl::StrCat("\"", id, "\""));
  return absl::StrCat("{", absl::StrJoin(quoted, ","), "}");
}

}  // namespace

// ---- Alerts ----

absl::Status PostgresAlertRepository::Insert(const std::vector<Alert>& alerts,
                                             std::vector<uint64_t>* ids) {
  return pool_->InTransaction([&](soci::session& sql) {
    for (const Alert& a : alerts) {
      std::string labels = LabelsText(a.labels), annotations = LabelsText(a.annotations);
      double starts = a.starts_at == absl::InfinitePast() ? Seconds(absl::Now()) : Seconds(a.starts_at);
      double ends = a.ends_at ? Seconds(*a.ends_at) : -1;
      double triggered = a.triggered_at == absl::InfinitePast() ? starts : Seconds(a.triggered_at);
      long long nid = static_cast<long long>(a.notification_id);
      long long ns = static_cast<long long>(a.namespace_id);
      long long id = 0;
      std::string silence_ids = TextArray(a.silence_ids);
      // A resend of a stored alert instance (same namespace, fingerprint and
      // startsAt) updates it: firing -> resolved, new ends_at, annotations,
      // Siren's fields and the silence outcome of this post. Another
      // namespace's alert with the same labels is another row (R3-M2).
      sql << "INSERT INTO alerts (provider_type, provider_id, status, labels, annotations, "
             "starts_at, ends_at, generator_url, fingerprint, group_key, notification_id, "
             "namespace_id, resource_name, metric_name, metric_value, severity, rule, "
             "triggered_at, silence_status, silence_ids) VALUES "
             "(:pt, :pi, :s, CAST(:l AS jsonb), CAST(:a AS jsonb), to_timestamp(:st), "
             "to_timestamp(NULLIF(:en, -1)), :g, :f, :k, NULLIF(:n, 0), :ns, :rn, :mn, :mv, "
             ":sev, :ru, to_timestamp(:tr), :ss, CAST(:si AS text[])) "
             "ON CONFLICT (provider_type, provider_id, namespace_id, fingerprint, starts_at) "
             "WHERE fingerprint <> '' DO UPDATE SET status = EXCLUDED.status, "
             "annotations = EXCLUDED.annotations, ends_at = EXCLUDED.ends_at, "
             "generator_url = EXCLUDED.generator_url, group_key = EXCLUDED.group_key, "
             "notification_id = COALESCE(EXCLUDED.notification_id, alerts.notification_id), "
             "resource_name = EXCLUDED.resource_name, "
             "metric_name = EXCLUDED.metric_name, metric_value = EXCLUDED.metric_value, "
             "severity = EXCLUDED.severity, rule = EXCLUDED.rule, "
             "silence_status = EXCLUDED.silence_status, silence_ids = EXCLUDED.silence_ids, "
             "updated_at = now() RETURNING id",
          soci::use(a.provider_type), soci::use(a.provider_id), soci::use(a.status),
          soci::use(labels), soci::use(annotations), soci::use(starts), soci::use(ends),
          soci::use(a.generator_url), soci::use(a.fingerprint), soci::use(a.group_key),
          soci::use(nid), soci::use(ns), soci::use(a.resource_name), soci::use(a.metric_name),
          soci::use(a.metric_value), soci::use(a.severity), soci::use(a.rule),
          soci::use(triggered), soci::use(a.silence_status), soci::use(silence_ids),
          soci::into(id);
      if (ids != nullptr) ids->push_back(static_cast<uint64_t>(id));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<Alert>> PostgresAlertRepository::List(const AlertFilter& filter,
                                                                 const Page& page, int* total) {
  std::vector<Alert> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string pt = filter.provider_type, pi = filter.provider_id;
    std::string rn = filter.resource_name, sid = filter.silence_id;
    long long ns = static_cast<long long>(filter.namespace_id);
    double f = filter.from == absl::InfinitePast() ? -1e10 : Seconds(filter.from);
    double t = filter.to == absl::InfiniteFuture() ? 1e10 : Seconds(filter.to);
    const char* where =
        " FROM alerts WHERE provider_type = :pt AND provider_id = :pi AND "
        "CAST(:ns AS bigint) IN (0, namespace_id) AND "
        "resource_name = COALESCE(NULLIF(CAST(:rn AS text), ''), resource_name) AND "
        // '' -> {} (contained in every array); silence ids have no commas.
        "silence_ids @> string_to_array(CAST(:sid AS text), ',') AND "
        "COALESCE(triggered_at, starts_at) >= to_timestamp(:f) AND "
        "COALESCE(triggered_at, starts_at) <= to_timestamp(:t)";
    if (total != nullptr) {
      sql << "SELECT count(*)" << where, soci::use(pt), soci::use(pi), soci::use(ns),
          soci::use(rn), soci::use(sid), soci::use(f), soci::use(t), soci::into(*total);
    }
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT id, status, labels::text, annotations::text, "
                     << Micros("starts_at") << ", COALESCE(" << Micros("ends_at")
                     << ", -1), generator_url, fingerprint, group_key, "
                        "COALESCE(notification_id, 0), "
                     << Micros("created_at")
                     << ", namespace_id, resource_name, metric_name, metric_value, severity, "
                        "rule, "
                     << Micros("COALESCE(triggered_at, starts_at)")
                     << ", silence_status, array_to_string(silence_ids, ',')" << where
                     << " ORDER BY COALESCE(triggered_at, starts_at) DESC, id DESC LIMIT "
                     << page.size << " OFFSET " << page.offset,
         soci::use(pt), soci::use(pi), soci::use(ns), soci::use(rn), soci::use(sid), soci::use(f),
         soci::use(t));
    for (const soci::row& row : rs) {
      Alert a;
      a.id = static_cast<uint64_t>(row.get<long long>(0));
      a.provider_type = pt;
      a.provider_id = pi;
      a.status = row.get<std::string>(1);
      a.labels = LabelsFromText(row.get<std::string>(2));
      a.annotations = LabelsFromText(row.get<std::string>(3));
      a.starts_at = TimeFromMicros(row.get<long long>(4));
      if (row.get<long long>(5) >= 0) a.ends_at = TimeFromMicros(row.get<long long>(5));
      a.generator_url = row.get<std::string>(6);
      a.fingerprint = row.get<std::string>(7);
      a.group_key = row.get<std::string>(8);
      a.notification_id = static_cast<uint64_t>(row.get<long long>(9));
      a.created_at = TimeFromMicros(row.get<long long>(10));
      a.namespace_id = static_cast<uint64_t>(row.get<long long>(11));
      a.resource_name = row.get<std::string>(12);
      a.metric_name = row.get<std::string>(13);
      a.metric_value = row.get<std::string>(14);
      a.severity = row.get<std::string>(15);
      a.rule = row.get<std::string>(16);
      a.triggered_at = TimeFromMicros(row.get<long long>(17));
      a.silence_status = row.get<std::string>(18);
      std::string ids = row.get<std::string>(19);
      if (!ids.empty()) a.silence_ids = absl::StrSplit(ids, ',');
      out.push_back(std::move(a));
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

// ---- Silences ----

namespace {

const std::string kSilenceCols =
    "id, namespace_id, type, target_id, target_expression::text, creator, comment, " +
    Micros("created_at") + ", COALESCE(" + Micros("deleted_at") + ", -1)";

Silence SilenceFromRow(const soci::row& row) {
  Silence s;
  s.id = row.get<std::string>(0);
  s.namespace_id = static_cast<uint64_t>(row.get<long long>(1));
  s.type = row.get<std::string>(2);
  s.target_id = static_cast<uint64_t>(row.get<long long>(3));
  s.target_expression = JsonFromText(row.get<std::string>(4));
  if (!s.target_expression.is_object()) s.target_expression = nlohmann::json::object();
  s.creator = row.get<std::string>(5);
  s.comment = row.get<std::string>(6);
  s.created_at = TimeFromMicros(row.get<long long>(7));
  if (row.get<long long>(8) >= 0) s.deleted_at = TimeFromMicros(row.get<long long>(8));
  return s;
}

std::vector<Silence> LoadSilences(soci::rowset<soci::row>& rs) {
  std::vector<Silence> out;
  for (const soci::row& row : rs) out.push_back(SilenceFromRow(row));
  return out;
}

}  // namespace

absl::StatusOr<Silence> PostgresSilenceRepository::Create(const Silence& s) {
  std::string id;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) {
    long long ns = static_cast<long long>(s.namespace_id);
    long long target = static_cast<long long>(s.target_id);
    std::string expression = s.target_expression.dump();
    sql << "INSERT INTO silences (namespace_id, type, target_id, target_expression, creator, "
           "comment) VALUES (:ns, :t, :ti, CAST(:te AS jsonb), :c, :cm) RETURNING id",
        soci::use(ns), soci::use(s.type), soci::use(target), soci::use(expression),
        soci::use(s.creator), soci::use(s.comment), soci::into(id);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return Get(id);
}

absl::StatusOr<std::vector<Silence>> PostgresSilenceRepository::List(const SilenceFilter& filter) {
  std::vector<Silence> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    long long ns = static_cast<long long>(filter.namespace_id);
    long long sub = static_cast<long long>(filter.subscription_id);
    std::string match = LabelsText(filter.match);
    std::string sub_match = filter.subscription_match.empty()
                                ? ""
                                : LabelsText(filter.subscription_match);
    int expired = filter.include_expired ? 1 : 0;
    // Siren's silence.go List: match -> target_expression @> match;
    // subscription_match -> target_expression <@ subscription_match.
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kSilenceCols
                     << " FROM silences WHERE (deleted_at IS NULL OR CAST(:e AS int) = 1) AND "
                        "CAST(:ns AS bigint) IN (0, namespace_id) AND "
                        "CAST(:sub AS bigint) IN (0, target_id) AND "
                        "target_expression @> CAST(:m AS jsonb) AND "
                        "target_expression <@ COALESCE(CAST(NULLIF(CAST(:sm AS text), '') AS "
                        "jsonb), target_expression) ORDER BY created_at, id",
         soci::use(expired), soci::use(ns), soci::use(sub), soci::use(match), soci::use(sub_match));
    out = LoadSilences(rs);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<Silence> PostgresSilenceRepository::Get(absl::string_view id) {
  std::vector<Silence> out;
  absl::Status st = pool_->Run([&](soci::session& sql) {
    std::string key(id);
    soci::rowset<soci::row> rs =
        (sql.prepare << "SELECT " << kSilenceCols << " FROM silences WHERE id = :id",
         soci::use(key));
    out = LoadSilences(rs);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (out.empty()) return absl::NotFoundError(absl::StrCat("silence \"", id, "\" not found"));
  return out[0];
}

absl::Status PostgresSilenceRepository::Expire(absl::string_view id) {
  int found = 0;
  absl::Status st = pool_->InTransaction([&](soci::session& sql) {
    std::string key(id);
    sql << "SELECT count(*) FROM silences WHERE id = :id", soci::use(key), soci::into(found);
    sql << "UPDATE silences SET deleted_at = now() WHERE id = :id AND deleted_at IS NULL",
        soci::use(key);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (found == 0) return absl::NotFoundError(absl::StrCat("silence \"", id, "\" not found"));
  return absl::OkStatus();
}

}  // namespace sluice::notification
