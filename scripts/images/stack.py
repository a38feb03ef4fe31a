#!/usr/bin/env python3
"""Runs Sluice's stack from its images as the deploy/ manifests describe it.

usage: stack.py [--check-only] [--repo R] [--version V] [--bazel-bin DIR]

Reads deploy/dev/postgres.yaml, deploy/sluice-server.yaml and
deploy/sluice-sink.yaml and:

  1. checks what no runner here executes, by reading the manifests: every probe
     points at a port a container of its pod listens on (from its args or env)
     and, for HTTP, at a path the gateway serves; the Service publishes only the
     gateway; the NetworkPolicy selects the server's pods and admits only the
     gateway's port (and metrics to the monitoring namespace), never gRPC; every
     Secret key the pods use is one the manifest's header documents, every file
     the config, flags or environment read from a Secret volume is an item of
     it, and every variable taken from a Secret is one the binary reads.
  2. (unless --check-only) runs each Deployment's init containers, then its
     containers, with `buildah run --isolation chroot --network host`: argv from
     the image's entrypoint and the manifest's command/args, the manifest's env
     (Secret references resolved), its volumes (ConfigMaps and Secrets as
     read-only files, emptyDirs as directories) at their mountPaths. Meant to
     run in a private network namespace (scripts/images/test.sh does
     `unshare -n`), which plays the cluster network: the manifests' ports are
     used unchanged and every Service name is 127.0.0.1.
     Substituted: image names (--repo/--version), Secret values (generated), and
     what points outside the stack: the ConfigMap's `access.admins` (an operator
     fills it), and the sink's Kafka brokers, topic, schema class and Stencil URL
     (the dev broker and sample producer, host binaries from --bazel-bin). Each
     substitution is printed.
     Then: PostgreSQL's exec probe; `migrate` exits 0 and creates tables; the
     probes answer; through the gateway policy -> provider -> appeal ->
     approve -> grant active; the server's /metrics; the sink delivers the
     producer's records to the log sink; on SIGTERM the server and the sink exit 0.

Prints "ok: ..." / "FAIL: ..." lines and exits 1 on any failure.
"""
import argparse
import glob
import json
import os
import re
import secrets as rnd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFESTS = ["deploy/dev/postgres.yaml", "deploy/sluice-server.yaml", "deploy/sluice-sink.yaml"]
# Which source tree reads a container's environment, by image name.
SOURCES = {"sluice-server": ["server", "common"], "sluice-gateway": ["gateway"],
           "sluice-sink": ["sink", "common"], "sluice-dev-postgres": []}
ADMIN = "admin@example.com"

failures = []


def ok(msg):
    print("  ok: " + msg, flush=True)


def fail(msg):
    print("  FAIL: " + msg, flush=True)
    failures.append(msg)


def load():
    docs = []
    for m in MANIFESTS:
        with open(os.path.join(ROOT, m)) as f:
            for d in yaml.safe_load_all(f):
                if d:
                    d["_file"] = m
                    docs.append(d)
    return docs


def kind(docs, k):
    return [d for d in docs if d.get("kind") == k]


def image_name(image):
    """sluice/sluice-server:0.1.0 -> sluice-server."""
    return image.rsplit("/", 1)[-1].split(":", 1)[0]


def flag(args, name):
    """The value of --name (or -name) in an argv list, or None."""
    for i, a in enumerate(args):
        if a in (name, "-" + name.lstrip("-")) and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def env_value(c, name):
    for e in c.get("env", []):
        if e["name"] == name:
            return e.get("value")
    return None


def listen_ports(c):
    """Ports a container listens on, from its args/env (not its declarations)."""
    name, args, ports = image_name(c["image"]), c.get("args", []), set()
    if name == "sluice-server" and "migrate" not in args:
        ports.add(int(flag(args, "--grpc_port") or 8081))
        ports.add(int(flag(args, "--metrics_port") or 9091))
    elif name == "sluice-gateway":
        ports.add(int(flag(args, "--http_port") or 8080))
        if int(flag(args, "--metrics_port") or 9095):  # its /metrics; 0 turns it off
            ports.add(int(flag(args, "--metrics_port") or 9095))
    elif name == "sluice-sink":
        for v in ("SINK_CONTROL_PORT", "METRIC_PROMETHEUS_PORT"):
            if env_value(c, v):
                ports.add(int(env_value(c, v)))
    elif name == "sluice-dev-postgres":
        ports.add(int(flag(args, "-p") or 5432))
    return ports


def resolve_port(pod_containers, port):
    if isinstance(port, int):
        return port
    for c in pod_containers:
        for p in c.get("ports", []):
            if p.get("name") == port:
                return p["containerPort"]
    return None


def secret_files_read(c, config_text):
    """Files under /etc that the container's config, flags or env name."""
    paths = set()
    text = " ".join(c.get("args", []) + [e.get("value") or "" for e in c.get("env", [])])
    if image_name(c["image"]) == "sluice-server":
        text += " " + config_text
    for m in re.finditer(r"(/etc/[A-Za-z0-9_./-]+)", text):
        paths.add(m.group(1))
    return paths


def check_manifests(docs):
    print("manifests (what no runner here executes)")
    deployments = {d["metadata"]["name"]: d for d in kind(docs, "Deployment")}
    config_maps = {d["metadata"]["name"]: d for d in kind(docs, "ConfigMap")}
    gateway_go = "".join(open(f).read() for f in glob.glob(os.path.join(ROOT, "gateway", "*.go")))
    gateway_port = None
    for dname, dep in deployments.items():
        spec = dep["spec"]["template"]["spec"]
        containers = spec.get("containers", [])
        listening = set().union(*[listen_ports(c) for c in containers])
        # Probes: a port someone listens on; HTTP paths the gateway serves.
        for c in containers:
            for pname in ("readinessProbe", "livenessProbe", "startupProbe"):
                probe = c.get(pname)
                if not probe:
                    continue
                where = "%s/%s %s" % (dname, c["name"], pname)
                if "httpGet" in probe:
                    port = resolve_port(containers, probe["httpGet"]["port"])
                    path = probe["httpGet"].get("path", "/")
                    served = ('"%s"' % path) in gateway_go
                    if port in listening and served:
                        ok("%s: GET %s on %s, which the gateway serves" % (where, path, port))
                    else:
                        fail("%s: GET %s on %s: port listened on %s, path served by the gateway %s"
                             % (where, path, port, sorted(listening), served))
                elif "grpc" in probe:
                    port = resolve_port(containers, probe["grpc"]["port"])
                    host = env_value(c, "SINK_CONTROL_HOST") or "127.0.0.1"
                    if port == int(env_value(c, "SINK_CONTROL_PORT") or -1) and host not in ("127.0.0.1", "localhost"):
                        ok("%s: gRPC health on %s = SINK_CONTROL_PORT, bound to %s (the kubelet reaches it)"
                           % (where, port, host))
                    else:
                        fail("%s: gRPC probe on %s, but SINK_CONTROL_PORT=%s SINK_CONTROL_HOST=%s"
                             % (where, port, env_value(c, "SINK_CONTROL_PORT"), host))
                elif "exec" in probe:
                    cmd = probe["exec"]["command"]
                    port = flag(cmd, "-p")
                    if port is None or int(port) in listening:
                        ok("%s: exec %s (port %s listened on)" % (where, " ".join(cmd), port))
                    else:
                        fail("%s: exec probe on port %s, listening on %s" % (where, port, sorted(listening)))
            for p in c.get("ports", []):
                if p["containerPort"] not in listen_ports(c):
                    fail("%s/%s declares port %s it does not listen on (%s)"
                         % (dname, c["name"], p["containerPort"], sorted(listen_ports(c))))
            if image_name(c["image"]) == "sluice-gateway":
                gateway_port = int(flag(c.get("args", []), "--http_port") or 8080)
        # Secrets: documented keys; files read are items of a mounted Secret;
        # variables from Secrets are read by the binary.
        header = "\n".join(l for l in open(os.path.join(ROOT, dep["_file"])).read().splitlines()
                            if l.lstrip().startswith("#"))
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        config_text = ""
        for v in volumes.values():
            if "configMap" in v and v["configMap"]["name"] in config_maps:
                config_text += " ".join(config_maps[v["configMap"]["name"]].get("data", {}).values())
        for c in spec.get("initContainers", []) + containers:
            where = "%s/%s" % (dname, c["name"])
            used = []
            for e in c.get("env", []):
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    used.append((ref["name"], ref["key"]))
                    src = SOURCES.get(image_name(c["image"]), [])
                    if any(subprocess.run(["grep", "-rqF", '"%s"' % e["name"], os.path.join(ROOT, s)]).returncode == 0
                           for s in src):
                        ok("%s: env %s from Secret %s/%s, read by %s" % (where, e["name"], ref["name"], ref["key"], "/".join(src)))
                    else:
                        fail("%s: env %s (Secret %s/%s) is read nowhere in %s" % (where, e["name"], ref["name"], ref["key"], src))
            mounts = {m["mountPath"]: volumes.get(m["name"], {}) for m in c.get("volumeMounts", [])}
            for path in sorted(secret_files_read(c, config_text)):
                mp = next((m for m in mounts if path.startswith(m.rstrip("/") + "/")), None)
                vol = mounts.get(mp, {}) if mp else {}
                if "secret" not in vol:
                    continue  # a ConfigMap file or a directory, not a Secret
                rel = path[len(mp.rstrip("/")) + 1:]
                items = vol["secret"].get("items")
                keys = {i["path"]: i["key"] for i in items} if items else None
                if keys is None or rel in keys:
                    key = keys[rel] if keys else rel
                    used.append((vol["secret"]["secretName"], key))
                    ok("%s reads %s: Secret %s key %s" % (where, path, vol["secret"]["secretName"], key))
                else:
                    fail("%s reads %s, but Secret volume %s has only items %s" % (where, path, vol["secret"]["secretName"], sorted(keys)))
            for v in volumes.values():
                for i in (v.get("secret", {}).get("items") or []):
                    used.append((v["secret"]["secretName"], i["key"]))
            for sname, key in sorted(set(used)):
                if re.search(r"(^|[\s`=-])%s([\s`=:]|$)" % re.escape(key), header, re.M):
                    pass
                else:
                    fail("%s: Secret %s key %s is documented in no comment of %s" % (where, sname, key, dep["_file"]))
    # Services publish only what a container listens on; the server's only the gateway.
    for svc in kind(docs, "Service"):
        sel = svc["spec"]["selector"]
        dep = next((d for d in deployments.values()
                    if all(d["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in sel.items())), None)
        if not dep:
            fail("Service %s selects no Deployment" % svc["metadata"]["name"])
            continue
        containers = dep["spec"]["template"]["spec"]["containers"]
        ports = [resolve_port(containers, p.get("targetPort", p["port"])) for p in svc["spec"]["ports"]]
        if dep["metadata"]["name"] == "sluice-server" and ports != [gateway_port]:
            fail("Service sluice-server publishes %s, want only the gateway's %s" % (ports, gateway_port))
        elif None in ports:
            fail("Service %s: a targetPort names no container port" % svc["metadata"]["name"])
        else:
            ok("Service %s -> %s" % (svc["metadata"]["name"], ports))
    # The NetworkPolicy: the server's pods, only the gateway's port from pods,
    # metrics only from the monitoring namespace, never the gRPC port.
    server = deployments["sluice-server"]
    scontainers = server["spec"]["template"]["spec"]["containers"]
    srv = next(c for c in scontainers if image_name(c["image"]) == "sluice-server")
    grpc_port = int(flag(srv["args"], "--grpc_port") or 8081)
    metrics_port = int(flag(srv["args"], "--metrics_port") or 9091)
    gw = next((c for c in scontainers if image_name(c["image"]) == "sluice-gateway"), None)
    gateway_metrics_port = int(flag(gw.get("args", []), "--metrics_port") or 9095) if gw else 0
    for np in kind(docs, "NetworkPolicy"):
        labels = server["spec"]["template"]["metadata"]["labels"]
        sel = np["spec"]["podSelector"].get("matchLabels", {})
        if not sel or any(labels.get(k) != v for k, v in sel.items()):
            fail("NetworkPolicy %s does not select the server's pods (%s)" % (np["metadata"]["name"], sel))
            continue
        admitted, bad = [], []
        if "Ingress" not in np["spec"].get("policyTypes", ["Ingress"]):
            bad.append("no Ingress policy type")
        for rule in np["spec"].get("ingress", []):
            ports = [resolve_port(scontainers, p["port"]) for p in rule.get("ports", [])]
            if not rule.get("from") or not ports:
                bad.append("a rule admits %s" % ("every source" if not rule.get("from") else "every port"))
                continue
            for p in ports:
                admitted.append(p)
                from_ns = all("namespaceSelector" in f and "podSelector" not in f for f in rule["from"])
                if p == gateway_port:
                    continue
                if p in (metrics_port, gateway_metrics_port) and from_ns:
                    continue
                bad.append("port %s admitted (from %s)" % (p, rule["from"]))
        if grpc_port in admitted:
            bad.append("the gRPC port %s is admitted" % grpc_port)
        if gateway_port not in admitted:
            bad.append("the gateway's port %s is not admitted" % gateway_port)
        if bad:
            fail("NetworkPolicy %s: %s" % (np["metadata"]["name"], "; ".join(bad)))
        else:
            ok("NetworkPolicy %s admits only the gateway (%s) and metrics (%s) from a namespace; not gRPC (%s)"
               % (np["metadata"]["name"], gateway_port, metrics_port, grpc_port))


class Stack:
    """The running containers and what they need, cleaned up by stop()."""

    def __init__(self, args, docs):
        self.args, self.docs = args, docs
        self.tmp = tempfile.mkdtemp(prefix="sluice-stack.", dir=os.environ.get("TMPDIR", "/tmp"))
        os.chmod(self.tmp, 0o755)
        self.ctrs, self.procs, self.host_procs = [], {}, []
        pg_password = rnd.token_hex(16)
        # Generated values for every Secret the manifests reference.
        self.secrets = {
            "sluice-dev-postgres": {"password": pg_password},
            "sluice": {
                # the dev PostgreSQL's Service, on this namespace's loopback
                "db-dsn": "host=127.0.0.1 port=5432 user=sluice password=%s dbname=postgres" % pg_password,
                "encryption-key": rnd.token_hex(32),
                "proxy-token": rnd.token_hex(32),
                "alert-token": rnd.token_hex(32),
                "alert-hook-secret": rnd.token_hex(32),
            },
            "sluice-sink-control": {"token": rnd.token_hex(32)},
        }
        self.env_overrides = {}
        self.config_overrides = {}

    def image(self, ref):
        return "%s/%s:%s" % (self.args.repo, image_name(ref), self.args.version)

    def inspect(self, image):
        out = subprocess.run(["buildah", "inspect", "--type", "image", image], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("image %s: %s (run make images)" % (image, out.stderr.strip()))
        return json.loads(out.stdout)["OCIv1"]["config"]

    def materialize(self, dname, spec):
        """Host directories for the pod's volumes: {volume name: dir}."""
        dirs = {}
        config_maps = {d["metadata"]["name"]: d for d in kind(self.docs, "ConfigMap")}
        for v in spec.get("volumes", []):
            d = os.path.join(self.tmp, dname, "vol-" + v["name"])
            os.makedirs(d)
            if "configMap" in v:
                data = dict(config_maps[v["configMap"]["name"]]["data"])
                for key, patch in self.config_overrides.items():
                    if key in data:
                        data[key] = patch(data[key])
                files = {i["path"]: data[i["key"]] for i in v["configMap"].get("items", [])} or data
            elif "secret" in v:
                values = self.secrets[v["secret"]["secretName"]]
                items = v["secret"].get("items")
                files = {i["path"]: values[i["key"]] for i in items} if items else dict(values)
            elif "emptyDir" in v:
                files = {}
                os.chown(d, 65532, 65532)  # the pod's fsGroup / the images' user
                os.chmod(d, 0o770)
            else:
                raise RuntimeError("volume %s: unsupported source" % v["name"])
            for path, content in files.items():
                with open(os.path.join(d, path), "w") as f:
                    f.write(content)
                os.chmod(os.path.join(d, path), 0o644)  # Kubernetes' defaultMode
            dirs[v["name"]] = d
        return dirs

    def argv(self, c, dirs):
        image = self.image(c["image"])
        cfg = self.inspect(image)
        user = cfg.get("User", "")
        if c.get("securityContext", {}).get("runAsNonRoot") and user.split(":")[0] in ("", "0", "root"):
            raise RuntimeError("%s runs as root, but the manifest says runAsNonRoot" % image)
        ctr = subprocess.run(["buildah", "from", "--quiet", image], capture_output=True, text=True,
                             check=True).stdout.strip()
        self.ctrs.append(ctr)
        if "command" in c:
            cmd = c["command"] + c.get("args", [])
        else:
            cmd = (cfg.get("Entrypoint") or []) + (c["args"] if "args" in c else (cfg.get("Cmd") or []))
        run = ["buildah", "run", "--isolation", "chroot", "--network", "host"]
        env = {}
        for e in c.get("env", []):
            if "value" in e:
                env[e["name"]] = e["value"]
            else:
                ref = e["valueFrom"]["secretKeyRef"]
                env[e["name"]] = self.secrets[ref["name"]][ref["key"]]
        env.update(self.env_overrides.get(c["name"], {}))
        for k, v in env.items():
            run += ["-e", "%s=%s" % (k, v)]
        for m in c.get("volumeMounts", []):
            src = dirs[m["name"]]
            if m.get("subPath"):
                src = os.path.join(src, m["subPath"])
            run += ["-v", "%s:%s%s" % (src, m["mountPath"], ":ro" if m.get("readOnly") else "")]
        return run + [ctr, "--"] + cmd, ctr

    def start(self, dname, c, dirs):
        argv, ctr = self.argv(c, dirs)
        log = open(os.path.join(self.tmp, "%s.%s.log" % (dname, c["name"])), "w")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs["%s/%s" % (dname, c["name"])] = (p, log.name, ctr)
        return p

    def log(self, key, n=4):
        try:
            with open(self.procs[key][1]) as f:
                return " | ".join(l.strip() for l in f.read().splitlines()[-n:])
        except (KeyError, OSError):
            return ""

    def run_deployment(self, dname):
        dep = next(d for d in kind(self.docs, "Deployment") if d["metadata"]["name"] == dname)
        spec = dep["spec"]["template"]["spec"]
        dirs = self.materialize(dname, spec)
        for c in spec.get("initContainers", []):
            p = self.start(dname, c, dirs)
            try:
                rc = p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = "timeout"
            if rc == 0:
                ok("%s init container %s exited 0" % (dname, c["name"]))
            else:
                fail("%s init container %s: exit %s: %s" % (dname, c["name"], rc, self.log("%s/%s" % (dname, c["name"]))))
                return False
        for c in spec["containers"]:
            self.start(dname, c, dirs)
        return True

    def exec_probe(self, dname, cname, cmd):
        _, _, ctr = self.procs["%s/%s" % (dname, cname)]
        return subprocess.run(["buildah", "run", "--isolation", "chroot", "--network", "host", ctr, "--"] + cmd,
                              capture_output=True, text=True).returncode

    def stop(self, key, timeout=45):
        """SIGTERM to the container's process, as the kubelet sends; its exit status."""
        p = self.procs[key][0]
        if p.poll() is None:
            # Not to `buildah run`: on SIGTERM its chroot helper goes and the
            # process gets SIGKILL. So to the process itself.
            targets = container_processes(p.pid)
            for pid in targets or [p.pid]:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        try:
            return p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return "timeout"

    def cleanup(self):
        for key in list(self.procs):
            self.stop(key, timeout=20)
        for p in self.host_procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        for ctr in self.ctrs:
            subprocess.run(["buildah", "rm", ctr], capture_output=True)
        if failures and os.environ.get("SLUICE_STACK_KEEP"):
            print("  logs kept in " + self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def container_processes(root):
    """The processes `buildah run` (pid root) runs: children of its chroot helper."""
    parent, argv0 = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv0[int(d)] = f.read().split(b"\0")[0].decode(errors="replace")
        except (OSError, IndexError, ValueError):
            pass

    def under(pid):
        while pid > 1:
            if pid == root:
                return True
            pid = parent.get(pid, 0)
        return False
    return [pid for pid, pp in parent.items()
            if under(pp) and argv0.get(pp, "").endswith("buildah-chroot-exec")]


def http(method, url, body=None, headers=None, timeout=10):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (urllib.error.URLError, OSError) as e:
        return 0, str(e)


def wait_for(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.5)
    return False


def run_stack(args, docs):
    st = Stack(args, docs)
    t0 = time.time()
    try:
        print("stack from the images (buildah run --isolation chroot, host network = a private namespace)")
        # Substitutions beyond image names and Secret values, printed.
        st.config_overrides["sluice.yaml"] = lambda text: _set_admins(text)
        print("  substituted: images %s/*:%s; Secret values generated; ConfigMap sluice-server access.admins=[%s]"
              % (args.repo, args.version, ADMIN))
        # PostgreSQL: initdb (init container), postgres, its exec probe.
        if not st.run_deployment("sluice-dev-postgres"):
            return
        pg = next(d for d in kind(docs, "Deployment") if d["metadata"]["name"] == "sluice-dev-postgres")
        pgc = pg["spec"]["template"]["spec"]["containers"][0]
        probe = pgc["readinessProbe"]["exec"]["command"]
        if wait_for(lambda: st.exec_probe("sluice-dev-postgres", pgc["name"], probe) == 0, 60):
            ok("sluice-dev-postgres ready (its exec probe, %s, exit 0)" % " ".join(probe))
        else:
            fail("PostgreSQL not ready: %s" % st.log("sluice-dev-postgres/" + pgc["name"]))
            return
        # The server's pod: migrate (init container), server + gateway.
        if not st.run_deployment("sluice-server"):
            return
        dsn = st.secrets["sluice"]["db-dsn"]
        tables = subprocess.run(["psql", dsn, "-Atc", "SELECT count(*) FROM information_schema.tables "
                                 "WHERE table_schema NOT IN ('pg_catalog','information_schema')"],
                                capture_output=True, text=True).stdout.strip()
        if tables.isdigit() and int(tables) > 0:
            ok("migrate created %s tables in the image's PostgreSQL" % tables)
        else:
            fail("no tables after migrate: %r" % tables)
        server = next(d for d in kind(docs, "Deployment") if d["metadata"]["name"] == "sluice-server")
        containers = server["spec"]["template"]["spec"]["containers"]
        probes = [(c["name"], pn, c[pn]["httpGet"]) for c in containers
                  for pn in ("readinessProbe", "livenessProbe") if pn in c and "httpGet" in c[pn]]
        name, pn, get = probes[0]
        url = "http://127.0.0.1:%s%s" % (resolve_port(containers, get["port"]), get["path"])
        if wait_for(lambda: http("GET", url)[0] == 200, 90):
            for name, pn, get in probes:
                u = "http://127.0.0.1:%s%s" % (resolve_port(containers, get["port"]), get["path"])
                code, body = http("GET", u)
                (ok if code == 200 else fail)("sluice-server/%s %s GET %s: %s %s" % (name, pn, u, code, body[:80]))
        else:
            fail("GET %s never answered 200: %s; server: %s; gateway: %s"
                 % (url, http("GET", url), st.log("sluice-server/server"), st.log("sluice-server/gateway")))
            return
        appeal_flow(st, containers)
        srv = next(c for c in containers if image_name(c["image"]) == "sluice-server")
        mport = int(flag(srv["args"], "--metrics_port") or 9091)
        code, body = http("GET", "http://127.0.0.1:%d/metrics" % mport)
        n = body.count("# TYPE")
        (ok if code == 200 and n else fail)("server /metrics on %d: %s, %d metric families" % (mport, code, n))
        gw = next(c for c in containers if image_name(c["image"]) == "sluice-gateway")
        gport = int(flag(gw.get("args", []), "--metrics_port") or 9095)
        code, body = http("GET", "http://127.0.0.1:%d/metrics" % gport)
        (ok if code == 200 and "sluice_gateway_requests_total" in body else fail)(
            "gateway /metrics on %d: %s, sluice_gateway_requests_total %s"
            % (gport, code, "present" if "sluice_gateway_requests_total" in body else "missing"))
        run_sink(st, args)
        for key in ("sluice-server/server", "sluice-server/gateway"):
            rc = st.stop(key)
            (ok if rc == 0 else fail)("%s exits %s on SIGTERM%s" % (key, rc, "" if rc == 0 else ": " + st.log(key)))
    except (RuntimeError, subprocess.CalledProcessError) as e:
        fail(str(e))
    finally:
        st.cleanup()
        print("stack: %d s" % (time.time() - t0))


def _set_admins(text):
    conf = yaml.safe_load(text)
    conf.setdefault("access", {})["admins"] = [ADMIN]
    return yaml.safe_dump(conf)


def appeal_flow(st, containers):
    gw = next(c for c in containers if image_name(c["image"]) == "sluice-gateway")
    api = "http://127.0.0.1:%s/api/v1beta1" % (flag(gw["args"], "--http_port") or 8080)
    header = flag(gw["args"], "--auth_header") or "X-Auth-Email"

    def call(who, method, path, body=None):
        code, text = http(method, api + path, body, {header: who})
        if code // 100 != 2:
            raise RuntimeError("%s %s as %s: %s %s" % (method, path, who, code, text[:200]))
        return json.loads(text or "{}")

    try:
        call(ADMIN, "POST", "/policies", {"id": "stack-test", "steps": [
            {"name": "owner", "strategy": "manual", "approvers": ["owner@example.com"]}],
            "appeal": {"allow_permanent_access": True}})
        call(ADMIN, "POST", "/providers", {"type": "noop", "urn": "noop-stack-test",
                                           "allowed_account_types": ["user"], "resources": [
                                               {"type": "noop", "policy": {"id": "stack-test", "version": 1},
                                                "roles": [{"id": "viewer"}]}]})
        rid = call(ADMIN, "GET", "/resources?urn=noop-stack-test")["resources"][0]["id"]
        aid = call("alice@example.com", "POST", "/appeals",
                   {"resources": [{"id": rid, "role": "viewer"}]})["appeals"][0]["id"]
        status = call("owner@example.com", "POST", "/appeals/%s/approvals/owner" % aid,
                      {"action": "approve", "reason": "stack test"})["appeal"]["status"]
        grant = call("alice@example.com", "GET", "/appeals/%s" % aid)["appeal"]["grant"]["status"]
        if status == "approved" and grant == "active":
            ok("through the gateway (%s): policy -> provider -> appeal -> approve: appeal %s, grant %s"
               % (header, status, grant))
        else:
            fail("appeal flow: appeal %s, grant %s" % (status, grant))
    except (KeyError, IndexError, ValueError, RuntimeError) as e:
        fail("appeal flow: %s; server: %s" % (e, st.log("sluice-server/server")))


def run_sink(st, args):
    binr = args.bazel_bin
    broker_bin = os.path.join(binr, "sink/devbroker/sluice-devbroker")
    producer_bin = os.path.join(binr, "sink/sample/sluice-sample-producer")
    desc = os.path.join(binr, "sink/sample/sample_cc.desc")
    if not all(os.path.exists(p) for p in (broker_bin, producer_bin, desc)):
        fail("dev broker, sample producer or descriptor set not built under %s" % binr)
        return
    www = os.path.join(st.tmp, "www")
    os.makedirs(www)
    shutil.copy(desc, os.path.join(www, "sample.desc"))
    bout = open(os.path.join(st.tmp, "broker.out"), "w+")
    st.host_procs.append(subprocess.Popen([broker_bin, "--topic", "sample-log:2"], stdout=bout,
                                          stderr=subprocess.DEVNULL))
    if not wait_for(lambda: open(bout.name).read().strip() != "", 15):
        fail("dev broker printed no address")
        return
    brokers = open(bout.name).read().splitlines()[0].strip()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        hport = s.getsockname()[1]
    st.host_procs.append(subprocess.Popen([sys.executable, "-m", "http.server", str(hport), "--bind", "127.0.0.1",
                                           "--directory", www], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    st.host_procs.append(subprocess.Popen([producer_bin, "--brokers", brokers, "--topic", "sample-log", "--rate", "20"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait_for(lambda: http("GET", "http://127.0.0.1:%d/sample.desc" % hport)[0] == 200, 10)
    dep = next(d for d in kind(st.docs, "Deployment") if d["metadata"]["name"].startswith("sluice-sink"))
    dname = dep["metadata"]["name"]
    c = dep["spec"]["template"]["spec"]["containers"][0]
    over = {"SOURCE_KAFKA_BROKERS": brokers, "SOURCE_KAFKA_TOPIC": "sample-log",
            "INPUT_SCHEMA_PROTO_CLASS": "io.sluice.sample.SampleProto$SampleLogMessage",
            "SCHEMA_REGISTRY_STENCIL_URLS": "http://127.0.0.1:%d/sample.desc" % hport,
            # a plain descriptor file, not a Stencil server with /versions
            "SCHEMA_REGISTRY_STENCIL_REFRESH_STRATEGY": "LONG_POLLING",
            "SOURCE_KAFKA_CONSUMER_CONFIG_AUTO_OFFSET_RESET": "earliest"}
    st.env_overrides[c["name"]] = over
    print("  substituted in %s: %s" % (dname, ", ".join("%s=%s" % kv for kv in over.items())))
    if not st.run_deployment(dname):
        return
    key = "%s/%s" % (dname, c["name"])

    def delivered():
        with open(st.procs[key][1]) as f:
            return sum(1 for l in f if l.startswith("topic=sample-log "))
    if wait_for(lambda: delivered() >= 10, 60):
        ok("%s: the log sink delivered %d records" % (dname, delivered()))
    else:
        fail("%s delivered %d records: %s" % (dname, delivered(), st.log(key)))
    port = resolve_port([c], c["readinessProbe"]["grpc"]["port"])
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        ok("%s: the readiness probe's port %s accepts connections" % (dname, port))
    except OSError as e:
        fail("%s: probe port %s: %s" % (dname, port, e))
    rc = st.stop(key, timeout=60)
    (ok if rc == 0 else fail)("%s exits %s on SIGTERM%s" % (key, rc, "" if rc == 0 else ": " + st.log(key)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check-only", action="store_true", help="only the manifest checks")
    ap.add_argument("--repo", default=os.environ.get("SLUICE_IMAGE_REPO", "sluice"))
    ap.add_argument("--version", default=None)
    ap.add_argument("--bazel-bin", default=None)
    args = ap.parse_args()
    if args.version is None:
        src = open(os.path.join(ROOT, "server/server_service.h")).read()
        args.version = re.search(r'kVersion\[\] = "([^"]+)"', src).group(1)
    docs = load()
    check_manifests(docs)
    if not args.check_only:
        run_stack(args, docs)
    print("stack.py: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
