"""Stand-in for rules_proto: forwards to the native rules (offline build)."""

ProtoInfo = ProtoInfo

def proto_library(**kw):
    native.proto_library(**kw)

def proto_lang_toolchain(**kw):
    native.proto_lang_toolchain(**kw)
