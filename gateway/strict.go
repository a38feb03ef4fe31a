package main

// Strict requests: a JSON body field or a query parameter that the route's
// request message does not have is refused with 400 / INVALID_ARGUMENT
// `unknown field "<name>" in <Message>` instead of being dropped, which is
// what grpc-gateway 1.6.4 does on its own (jsonpb AllowUnknownFields in
// runtime/marshal_jsonpb.go, and runtime/query.go skipping unknown
// parameters). Two hooks, both public grpc-gateway/gRPC options:
//
//   - the body: strictJSONPb, the mux's marshaler, decodes with jsonpb's
//     unknown-field check on, so a misspelt field at any depth names the
//     innermost message that lacks it;
//   - the query: strictQueryInterceptor, a unary client interceptor on the
//     connection to the server, sees the request message the matched route
//     built and checks every query parameter of the HTTP request (which
//     withHTTPRequest puts in the context) against that message and the
//     route's google.api.http binding, read from the registered descriptors.
//     The call is refused before it reaches the server.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/ioutil"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/golang/protobuf/jsonpb"
	"github.com/golang/protobuf/proto"
	descpb "github.com/golang/protobuf/protoc-gen-go/descriptor"
	"github.com/grpc-ecosystem/grpc-gateway/protoc-gen-grpc-gateway/httprule"
	"github.com/grpc-ecosystem/grpc-gateway/runtime"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ---- the body ----

// strictJSONPb is runtime.JSONPb (same output) whose request decoder refuses
// unknown fields.
type strictJSONPb struct {
	runtime.JSONPb
	names *messageNames
}

// NewDecoder decodes the body into the route's body target (the request
// message, or the field `body:` names) with unknown fields refused.
func (j *strictJSONPb) NewDecoder(r io.Reader) runtime.Decoder {
	d := json.NewDecoder(r)
	return runtime.DecoderFunc(func(v interface{}) error { return j.decode(d, v) })
}

// Unmarshal is NewDecoder over data.
func (j *strictJSONPb) Unmarshal(data []byte, v interface{}) error {
	return j.NewDecoder(bytes.NewReader(data)).Decode(v)
}

func (j *strictJSONPb) decode(d *json.Decoder, v interface{}) error {
	msg := protoTarget(v)
	if msg == nil {
		// A scalar, map or enum body field: nothing can be unknown in it.
		return runtime.DecoderWrapper{Decoder: d}.Decode(v)
	}
	err := (&jsonpb.Unmarshaler{AllowUnknownFields: false}).UnmarshalNext(d, msg)
	if err != nil {
		return j.names.rewrite(err)
	}
	return nil
}

// protoTarget is the message v points at, allocating through pointers as
// grpc-gateway's decodeNonProtoField does (a `body: "config"` route decodes
// into &protoReq.Config, a **ProviderConfig); nil when v is no message.
func protoTarget(v interface{}) proto.Message {
	if m, ok := v.(proto.Message); ok {
		return m
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Ptr {
		return nil
	}
	msgType := reflect.TypeOf((*proto.Message)(nil)).Elem()
	for rv.Kind() == reflect.Ptr {
		if rv.IsNil() {
			if !rv.CanSet() {
				return nil
			}
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		if rv.Type().Implements(msgType) {
			return rv.Interface().(proto.Message)
		}
		rv = rv.Elem()
	}
	return nil
}

var jsonpbUnknown = regexp.MustCompile(`^unknown field "(.*)" in (\S+)$`)

// messageNames maps Go message types (as jsonpb prints them,
// "v1beta1.Policy_Step") to proto names without the package ("Policy.Step").
type messageNames struct{ byGoType map[string]string }

// rewrite turns jsonpb's `unknown field "x" in v1beta1.Foo_Bar` into
// `unknown field "x" in Foo.Bar`, as INVALID_ARGUMENT; other decode errors
// pass through (the generated handler makes them INVALID_ARGUMENT).
func (n *messageNames) rewrite(err error) error {
	m := jsonpbUnknown.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	name, ok := n.byGoType[m[2]]
	if !ok {
		name = m[2][strings.LastIndex(m[2], ".")+1:]
	}
	return fmt.Errorf("unknown field %q in %s", m[1], name)
}

// ---- the route table, from the descriptors ----

// binding is one google.api.http binding of an RPC.
type binding struct {
	method   string          // HTTP method
	template string          // "/api/v1beta1/grants/{id}"
	pattern  runtime.Pattern // as the generated handler's
	body     string          // "", "*" or a field path
	pathVars []string        // field paths bound by the template
}

// route is an RPC with its bindings and its request message's short name.
type route struct {
	request  string // "ListGrantsRequest"
	bindings []binding
}

// routeTable maps a gRPC method ("/sluice.access.v1beta1.GrantService/ListGrants")
// to its route; it is read-only after loadRoutes.
type routeTable struct {
	routes map[string]*route
	names  *messageNames
}

// loadRoutes reads the services and message names of the registered proto
// files (gatewayProtoFiles, written by build.sh).
func loadRoutes(files []string) (*routeTable, error) {
	t := &routeTable{routes: map[string]*route{}, names: &messageNames{byGoType: map[string]string{}}}
	for _, name := range files {
		gz := proto.FileDescriptor(name)
		if gz == nil {
			return nil, fmt.Errorf("proto file %s is not registered", name)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		raw, err := ioutil.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		var fd descpb.FileDescriptorProto
		if err := proto.Unmarshal(raw, &fd); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		pkg := fd.GetPackage()
		for _, m := range fd.GetMessageType() {
			t.names.add(pkg, "", m)
		}
		for _, svc := range fd.GetService() {
			for _, m := range svc.GetMethod() {
				r, err := routeOf(m)
				if err != nil {
					return nil, fmt.Errorf("%s.%s/%s: %v", pkg, svc.GetName(), m.GetName(), err)
				}
				if r != nil {
					t.routes["/"+pkg+"."+svc.GetName()+"/"+m.GetName()] = r
				}
			}
		}
	}
	return t, nil
}

func (n *messageNames) add(pkg, outer string, m *descpb.DescriptorProto) {
	short := m.GetName()
	if outer != "" {
		short = outer + "." + short
	}
	if typ := proto.MessageType(pkg + "." + short); typ != nil {
		n.byGoType[typ.Elem().String()] = short
	}
	for _, nested := range m.GetNestedType() {
		n.add(pkg, short, nested)
	}
}

// routeOf is m's HTTP route, nil when m has no google.api.http option.
func routeOf(m *descpb.MethodDescriptorProto) (*route, error) {
	if m.GetOptions() == nil || !proto.HasExtension(m.GetOptions(), annotations.E_Http) {
		return nil, nil
	}
	ext, err := proto.GetExtension(m.GetOptions(), annotations.E_Http)
	if err != nil {
		return nil, err
	}
	rule := ext.(*annotations.HttpRule)
	in := m.GetInputType()
	r := &route{request: in[strings.LastIndex(in, ".")+1:]}
	for _, rl := range append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...) {
		b, err := bindingOf(rl)
		if err != nil {
			return nil, err
		}
		r.bindings = append(r.bindings, b)
	}
	return r, nil
}

func bindingOf(rl *annotations.HttpRule) (binding, error) {
	b := binding{body: rl.GetBody()}
	switch {
	case rl.GetGet() != "":
		b.method, b.template = http.MethodGet, rl.GetGet()
	case rl.GetPost() != "":
		b.method, b.template = http.MethodPost, rl.GetPost()
	case rl.GetPut() != "":
		b.method, b.template = http.MethodPut, rl.GetPut()
	case rl.GetDelete() != "":
		b.method, b.template = http.MethodDelete, rl.GetDelete()
	case rl.GetPatch() != "":
		b.method, b.template = http.MethodPatch, rl.GetPatch()
	case rl.GetCustom() != nil:
		b.method, b.template = rl.GetCustom().GetKind(), rl.GetCustom().GetPath()
	}
	parsed, err := httprule.Parse(b.template)
	if err != nil {
		return b, err
	}
	tmpl := parsed.Compile()
	b.pattern, err = runtime.NewPattern(tmpl.Version, tmpl.OpCodes, tmpl.Pool, tmpl.Verb)
	if err != nil {
		return b, err
	}
	b.pathVars = tmpl.Fields
	return b, nil
}

// match is the binding of r that serves req (method and path as
// runtime.ServeMux matches them); nil when none does.
func (r *route) match(req *http.Request) *binding {
	path := req.URL.Path
	if !strings.HasPrefix(path, "/") {
		return nil
	}
	components := strings.Split(path[1:], "/")
	last := len(components) - 1
	verb := ""
	if idx := strings.LastIndex(components[last], ":"); idx > 0 {
		c := components[last]
		components[last], verb = c[:idx], c[idx+1:]
	}
	for i := range r.bindings {
		b := &r.bindings[i]
		if b.method != req.Method {
			continue
		}
		if _, err := b.pattern.Match(components, verb); err == nil {
			return b
		}
	}
	return nil
}

// ---- the query ----

type httpRequestKey struct{}

// requestRef is the context value: the very request the mux serves (the mux
// may change its Method, for X-HTTP-Method-Override).
type requestRef struct{ r *http.Request }

// withHTTPRequest puts the HTTP request in its context, for
// strictQueryInterceptor (grpc-gateway derives the call's context from it).
func withHTTPRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref := &requestRef{}
		ref.r = r.WithContext(context.WithValue(r.Context(), httpRequestKey{}, ref))
		next.ServeHTTP(w, ref.r)
	})
}

// strictQueryInterceptor refuses, before the call is made, a REST request
// carrying a query parameter that its route does not read (see
// checkQuery). Calls that do not come from a routed HTTP request (the
// health check) pass.
func strictQueryInterceptor(t *routeTable) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if ref, ok := ctx.Value(httpRequestKey{}).(*requestRef); ok && len(ref.r.URL.RawQuery) > 0 {
			if r := t.routes[method]; r != nil {
				b := r.match(ref.r)
				if b == nil {
					// Not expected (the mux matched one of r's bindings):
					// still refuse what the message does not have.
					b = &binding{method: ref.r.Method, template: ref.r.URL.Path}
				}
				if msg := checkQuery(ref.r.URL.Query(), b, r.request, req); msg != "" {
					return status.Error(codes.InvalidArgument, msg)
				}
			}
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

var mapParam = regexp.MustCompile(`^(.*)\[(.*)\]$`)

// checkQuery is "" when every parameter of q is one that binding b reads
// into the request message req (named `request`), else why not:
//   - `unknown field "<param>" in <Request>`: the message has no such field
//     (names as runtime.PopulateQueryParameters resolves them: proto or JSON
//     name, dotted paths into nested messages, `key[sub]` for maps);
//   - the field exists but this route takes it from the body or the path,
//     where grpc-gateway would silently ignore the query copy.
//
// Parameters are checked in sorted order, so the answer is stable.
func checkQuery(q map[string][]string, b *binding, request string, req interface{}) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		name := key
		if m := mapParam.FindStringSubmatch(key); m != nil {
			name = m[1]
		}
		path := strings.Split(name, ".")
		canonical, ok := resolveField(reflect.TypeOf(req), path)
		if !ok {
			return fmt.Sprintf("unknown field %q in %s", name, request)
		}
		route := b.method + " " + b.template
		if b.body == "*" {
			return fmt.Sprintf("query parameter %q is not read by %s: send it in the JSON body", name, route)
		}
		if b.body != "" && hasPrefix(canonical, strings.Split(b.body, ".")) {
			return fmt.Sprintf("query parameter %q is not read by %s: it belongs in the JSON body", name, route)
		}
		for _, v := range b.pathVars {
			if hasPrefix(canonical, strings.Split(v, ".")) {
				return fmt.Sprintf("query parameter %q is not read by %s: it is taken from the path", name, route)
			}
		}
	}
	return ""
}

// resolveField walks path through message type t (a pointer to a generated
// struct) as runtime.PopulateQueryParameters does; it returns the path in
// proto names and whether every step names a field.
func resolveField(t reflect.Type, path []string) ([]string, bool) {
	var out []string
	for i, name := range path {
		for t.Kind() == reflect.Ptr {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil, false
		}
		props := proto.GetProperties(t)
		var next reflect.Type
		if op, ok := props.OneofTypes[name]; ok {
			next, name = op.Type.Elem().Field(0).Type, op.Prop.OrigName
		} else {
			found := false
			for _, p := range props.Prop {
				if p.OrigName != "" && (p.OrigName == name || p.JSONName == name) {
					f, _ := t.FieldByName(p.Name)
					next, name, found = f.Type, p.OrigName, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
		out = append(out, name)
		if i < len(path)-1 {
			t = next
		}
	}
	return out, true
}

func hasPrefix(path, prefix []string) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}
