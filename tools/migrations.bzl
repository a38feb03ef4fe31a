"""Embeds a component's NNNN_name.up.sql migrations into a cc_library.

sluice_migrations(name, component, symbol, srcs) defines
`const sluice::db::MigrationSet& <symbol>()` (declare it in a header of yours,
in namespace sluice::db) for common/db/migrate.h's Migrate().
"""

def sluice_migrations(name, component, symbol, srcs, visibility = None):
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = [name + ".cc"],
        tools = ["//tools:embed_migrations.py"],
        cmd = "python3 $(location //tools:embed_migrations.py) $@ %s %s $(SRCS)" % (component, symbol),
    )
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
        deps = ["//common/db:migrate"],
        visibility = visibility,
    )
