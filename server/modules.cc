// The one list of API modules hosted by sluice-server. Add a row per module.
#include "server/module.h"
#include "server/access/module.h"
#include "server/notification/module.h"

namespace sluice::server {

const std::vector<ModuleEntry>& Modules() {
  static const std::vector<ModuleEntry>* modules = new std::vector<ModuleEntry>{
      {"access", &access::CreateModule, &db::AccessMigrations},
      {"notification", &notification::CreateModule, &db::NotificationMigrations},
  };
  return *modules;
}

}  // namespace sluice::server
