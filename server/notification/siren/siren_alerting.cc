// Siren handlers: alert providers, namespaces and rules (issue #31), on
// AlertingService (server/notification/core/alerting.h).
#include "server/notification/siren/siren_internal.h"

namespace sluice::notification::siren {

namespace {

absl::Status NoAlerting() {
  return absl::UnimplementedError("alert providers, namespaces and rules are not configured");
}

Labels LabelsOf(const google::protobuf::Map<std::string, std::string>& m) {
  return Labels(m.begin(), m.end());
}

void ToSiren(const AlertProvider& p, spb::Provider* out) {
  out->set_id(p.id);
  out->set_host(p.host);
  out->set_urn(p.urn);
  out->set_name(p.name);
  out->set_type(p.type);
  (void)api::JsonToStruct(p.credentials, out->mutable_credentials());
  for (const auto& [k, v] : p.labels) (*out->mutable_labels())[k] = v;
  api::SetTime(p.created_at, out->mutable_created_at());
  api::SetTime(p.updated_at, out->mutable_updated_at());
}

void ToSiren(const AlertNamespace& n, spb::Namespace* out) {
  out->set_id(n.id);
  out->set_urn(n.urn);
  out->set_name(n.name);
  out->set_provider(n.provider_id);
  (void)api::JsonToStruct(n.credentials, out->mutable_credentials());
  for (const auto& [k, v] : n.labels) (*out->mutable_labels())[k] = v;
  api::SetTime(n.created_at, out->mutable_created_at());
  api::SetTime(n.updated_at, out->mutable_updated_at());
}

void ToSiren(const AlertRule& r, spb::Rule* out) {
  out->set_id(r.id);
  out->set_name(r.name);
  out->set_enabled(r.enabled);
  out->set_group_name(r.group_name);
  out->set_namespace_(r.rule_namespace);
  out->set_template_(r.template_name);
  for (const RuleVariable& v : r.variables) {
    spb::Variables* pv = out->add_variables();
    pv->set_name(v.name);
    pv->set_value(v.value);
    pv->set_type(v.type);
    pv->set_description(v.description);
  }
  api::SetTime(r.created_at, out->mutable_created_at());
  api::SetTime(r.updated_at, out->mutable_updated_at());
  out->set_provider_namespace(r.namespace_id);
}

}  // namespace

// ---- Providers ----

grpc::Status SirenGrpcService::ListProviders(grpc::ServerContext* ctx,
                                             const spb::ListProvidersRequest* req,
                                             spb::ListProvidersResponse* resp) {
  return Call(ctx, "ListProviders", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    auto list = s_.alerting->ListProviders(req->urn(), req->type());
    if (!list.ok()) return list.status();
    for (const AlertProvider& p : *list) ToSiren(p, resp->add_providers());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::CreateProvider(grpc::ServerContext* ctx,
                                              const spb::CreateProviderRequest* req,
                                              spb::CreateProviderResponse* resp) {
  return AdminCall(ctx, "CreateProvider", "create alert providers", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    AlertProvider p;
    p.host = req->host();
    p.urn = req->urn();
    p.name = req->name();
    p.type = req->type();
    p.credentials = api::StructToJson(req->credentials());
    p.labels = LabelsOf(req->labels());
    auto id = s_.alerting->CreateProvider(std::move(p));
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::GetProvider(grpc::ServerContext* ctx,
                                           const spb::GetProviderRequest* req,
                                           spb::GetProviderResponse* resp) {
  return Call(ctx, "GetProvider", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    auto p = s_.alerting->GetProvider(req->id());
    if (!p.ok()) return p.status();
    ToSiren(*p, resp->mutable_provider());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::UpdateProvider(grpc::ServerContext* ctx,
                                              const spb::UpdateProviderRequest* req,
                                              spb::UpdateProviderResponse* resp) {
  return AdminCall(ctx, "UpdateProvider", "update alert providers", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    AlertProvider p;
    p.id = req->id();
    p.host = req->host();
    p.name = req->name();
    p.type = req->type();
    p.credentials = api::StructToJson(req->credentials());
    p.labels = LabelsOf(req->labels());
    if (auto st = s_.alerting->UpdateProvider(std::move(p)); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::DeleteProvider(grpc::ServerContext* ctx,
                                              const spb::DeleteProviderRequest* req,
                                              spb::DeleteProviderResponse*) {
  return AdminCall(ctx, "DeleteProvider", "delete alert providers", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    return s_.alerting->DeleteProvider(req->id());
  });
}

// ---- Namespaces ----

grpc::Status SirenGrpcService::ListNamespaces(grpc::ServerContext* ctx,
                                              const spb::ListNamespacesRequest*,
                                              spb::ListNamespacesResponse* resp) {
  return Call(ctx, "ListNamespaces", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    auto list = s_.alerting->ListNamespaces();
    if (!list.ok()) return list.status();
    for (const AlertNamespace& n : *list) ToSiren(n, resp->add_namespaces());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::CreateNamespace(grpc::ServerContext* ctx,
                                               const spb::CreateNamespaceRequest* req,
                                               spb::CreateNamespaceResponse* resp) {
  return AdminCall(ctx, "CreateNamespace", "create namespaces", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    AlertNamespace n;
    n.urn = req->urn();
    n.name = req->name();
    n.provider_id = req->provider();
    n.credentials = api::StructToJson(req->credentials());
    n.labels = LabelsOf(req->labels());
    auto id = s_.alerting->CreateNamespace(std::move(n));
    if (!id.ok()) return id.status();
    resp->set_id(*id);
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::GetNamespace(grpc::ServerContext* ctx,
                                            const spb::GetNamespaceRequest* req,
                                            spb::GetNamespaceResponse* resp) {
  return Call(ctx, "GetNamespace", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    auto n = s_.alerting->GetNamespace(req->id());
    if (!n.ok()) return n.status();
    ToSiren(*n, resp->mutable_namespace_());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::UpdateNamespace(grpc::ServerContext* ctx,
                                               const spb::UpdateNamespaceRequest* req,
                                               spb::UpdateNamespaceResponse* resp) {
  return AdminCall(ctx, "UpdateNamespace", "update namespaces", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    AlertNamespace n;
    n.id = req->id();
    n.name = req->name();
    n.provider_id = req->provider();
    n.credentials = api::StructToJson(req->credentials());
    n.labels = LabelsOf(req->labels());
    if (auto st = s_.alerting->UpdateNamespace(std::move(n)); !st.ok()) return st;
    resp->set_id(req->id());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::DeleteNamespace(grpc::ServerContext* ctx,
                                               const spb::DeleteNamespaceRequest* req,
                                               spb::DeleteNamespaceResponse*) {
  return AdminCall(ctx, "DeleteNamespace", "delete namespaces", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    return s_.alerting->DeleteNamespace(req->id());
  });
}

// ---- Rules ----

grpc::Status SirenGrpcService::ListRules(grpc::ServerContext* ctx, const spb::ListRulesRequest* req,
                                         spb::ListRulesResponse* resp) {
  return Call(ctx, "ListRules", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    AlertRuleFilter f;
    f.name = req->name();
    f.rule_namespace = req->namespace_();
    f.group_name = req->group_name();
    f.template_name = req->template_();
    f.namespace_id = req->provider_namespace();
    auto list = s_.alerting->ListRules(f);
    if (!list.ok()) return list.status();
    for (const AlertRule& r : *list) ToSiren(r, resp->add_rules());
    return absl::OkStatus();
  });
}

grpc::Status SirenGrpcService::UpdateRule(grpc::ServerContext* ctx, const spb::UpdateRuleRequest* req,
                                          spb::UpdateRuleResponse* resp) {
  return AdminCall(ctx, "UpdateRule", "change rules", [&](const Caller&) -> absl::Status {
    if (s_.alerting == nullptr) return NoAlerting();
    AlertRule r;
    r.enabled = req->enabled();
    r.group_name = req->group_name();
    r.rule_namespace = req->namespace_();
    r.template_name = req->template_();
    r.namespace_id = req->provider_namespace();
    for (const spb::Variables& v : req->variables()) {
      r.variables.push_back({v.name(), v.value(), v.type(), v.description()});
    }
    auto saved = s_.alerting->UpsertRule(std::move(r));
    if (!saved.ok()) return saved.status();
    ToSiren(*saved, resp->mutable_rule());
    return absl::OkStatus();
  });
}

}  // namespace sluice::notification::siren
