"""C++ code generation from .proto files with the system protoc and grpc_cpp_plugin.

`sluice_cc_proto(name, srcs, deps, grpc)` runs /usr/bin/protoc over `srcs` (paths
relative to the workspace root or to //third_party/googleapis), and wraps the
generated sources in a cc_library `name`. It also emits `<name>_descriptor_set`,
a FileDescriptorSet with imports, which tests and the schema registry serve.
"""

_INCLUDES = [
    "-I.",
    "-Ithird_party/googleapis",
    "-I/usr/include",
]

# Passed only for sources under it: the other protos' commands (and so their
# disk-cache keys) stay as they were, and protoc does not warn about a
# directory missing from their sandboxes.
_OTEL_INCLUDE = "-Ithird_party/opentelemetry_proto"

# Vendored upstream proto trees whose files import each other by their own
# root-relative paths ("google/api/http.proto", "opentelemetry/proto/...").
_ROOTS = ["third_party/googleapis/", "third_party/opentelemetry_proto/"]

def _strip(src):
    for prefix in _ROOTS:
        if src.startswith(prefix):
            return src[len(prefix):]
    return src

def sluice_cc_proto(name, srcs, deps = [], grpc = False, proto_deps = [], visibility = None):
    """Generates C++ (and gRPC stubs when `grpc`) for `srcs`.

    Args:
      name: the cc_library name.
      srcs: .proto files, labels in this package (e.g. "foo.proto").
      deps: cc_library deps (other sluice_cc_proto targets).
      grpc: also run grpc_cpp_plugin.
      proto_deps: .proto file labels that srcs import (for protoc's input set).
      visibility: passed to the generated targets.
    """
    pkg = native.package_name()
    rel = [(pkg + "/" + s) if pkg else s for s in srcs]
    includes_flags = _INCLUDES
    if [p for p in rel if p.startswith("third_party/opentelemetry_proto/")]:
        includes_flags = _INCLUDES + [_OTEL_INCLUDE]
    outs = []
    for s in srcs:
        base = s[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
        if grpc:
            outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]

    # protoc writes outputs under the proto's import path; strip the vendored
    # root's prefix so generated includes (`google/api/http.pb.h`) resolve.
    out_root = "$(GENDIR)"
    for p in rel:
        for root in _ROOTS:
            if p.startswith(root):
                out_root = "$(GENDIR)/" + root[:-1]
    cmd = " ".join(
        ["/usr/bin/protoc"] + includes_flags +
        ["--cpp_out=" + out_root] +
        (["--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin", "--grpc_out=" + out_root] if grpc else []) +
        [_strip(p) for p in rel],
    )
    native.genrule(
        name = name + "_gen",
        srcs = srcs + proto_deps,
        outs = outs,
        cmd = cmd,
        visibility = visibility,
    )
    native.genrule(
        name = name + "_descriptor_set",
        srcs = srcs + proto_deps,
        outs = [name + ".desc"],
        cmd = " ".join(["/usr/bin/protoc"] + includes_flags + [
            "--include_imports",
            "--descriptor_set_out=$@",
        ] + [_strip(p) for p in rel]),
        visibility = visibility,
    )
    includes = []
    if pkg + "/" in _ROOTS:
        # Generated headers live under .../third_party/googleapis/google/api/; make
        # `#include "google/api/http.pb.h"` resolve from the vendored root.
        includes = ["."]
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        includes = includes,
        deps = deps + ["@system_libs//:protobuf"] + (["@system_libs//:grpc"] if grpc else []),
        visibility = visibility,
    )
