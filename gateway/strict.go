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
//     route's google.api.http binding (the one the mux matched, from
//     runtime.HTTPPathPattern), read from the registered descriptors. The
//     call is refused before it reaches the server.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
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

var requestJSON = protojson.UnmarshalOptions{DiscardUnknown: false}

func (j *strictJSONPb) decode(d *json.Decoder, v interface{}) error {
	msg := protoTarget(v)
	if msg == nil {
		// A scalar, map or enum body field: nothing can be unknown in it.
		return runtime.DecoderWrapper{Decoder: d, UnmarshalOptions: requestJSON}.Decode(v)
	}
	var raw json.RawMessage
	if err := d.Decode(&raw); err != nil {
		return err
	}
	if err := requestJSON.Unmarshal(raw, msg); err != nil {
		if field, in, ok := unknownField(raw, msg.ProtoReflect().Descriptor()); ok {
			return fmt.Errorf("unknown field %q in %s", field, j.names.short(in))
		}
		return err
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

// unknownField finds, depth first in document order, the first key of the
// JSON value raw that message md does not declare (by proto or JSON name),
// and the message that lacks it. Well-known types (google.protobuf.*) and
// map values of scalar type are not walked: protojson reads them by their
// own rules. false when every key is declared (the decode error was
// something else).
func unknownField(raw json.RawMessage, md protoreflect.MessageDescriptor) (string, protoreflect.MessageDescriptor, bool) {
	if md.ParentFile() != nil && md.ParentFile().Package() == "google.protobuf" {
		return "", nil, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return "", nil, false
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return "", nil, false
		}
		key, _ := t.(string)
		var value json.RawMessage
		if err := d.Decode(&value); err != nil {
			return "", nil, false
		}
		fd := fieldByName(md, key)
		if fd == nil {
			if strings.HasPrefix(key, "[") { // an extension, which protojson reports itself
				continue
			}
			return key, md, true
		}
		if name, in, ok := unknownInValue(value, fd); ok {
			return name, in, true
		}
	}
	return "", nil, false
}

// unknownInValue walks a field's JSON value: a message, a list of messages,
// or a map whose values are messages.
func unknownInValue(value json.RawMessage, fd protoreflect.FieldDescriptor) (string, protoreflect.MessageDescriptor, bool) {
	if fd.IsMap() {
		if fd.MapValue().Message() == nil {
			return "", nil, false
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(value, &m) != nil {
			return "", nil, false
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if name, in, ok := unknownField(m[k], fd.MapValue().Message()); ok {
				return name, in, true
			}
		}
		return "", nil, false
	}
	if fd.Message() == nil {
		return "", nil, false
	}
	if fd.IsList() {
		var items []json.RawMessage
		if json.Unmarshal(value, &items) != nil {
			return "", nil, false
		}
		for _, item := range items {
			if name, in, ok := unknownField(item, fd.Message()); ok {
				return name, in, true
			}
		}
		return "", nil, false
	}
	return unknownField(value, fd.Message())
}

// fieldByName is md's field whose proto name or JSON name is name (as
// protojson and runtime.PopulateQueryParameters resolve them); nil if none.
func fieldByName(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	fields := md.Fields()
	if fd := fields.ByName(protoreflect.Name(name)); fd != nil {
		return fd
	}
	return fields.ByJSONName(name)
}

// messageNames gives a message's name as the REST errors print it: its full
// name without the package ("Policy.Step").
type messageNames struct{}

func (*messageNames) short(md protoreflect.MessageDescriptor) string {
	full := string(md.FullName())
	if pkg := string(md.ParentFile().Package()); pkg != "" && strings.HasPrefix(full, pkg+".") {
		return full[len(pkg)+1:]
	}
	return full
}

// ---- the route table, from the descriptors ----

// binding is one google.api.http binding of an RPC.
type binding struct {
	method   string   // HTTP method
	template string   // "/api/v1beta1/grants/{id}"
	body     string   // "", "*" or a field path
	pathVars []string // field paths bound by the template
}

// route is an RPC with its bindings, its request message's short name and
// descriptor.
type route struct {
	request    string // "ListGrantsRequest"
	descriptor protoreflect.MessageDescriptor
	bindings   []binding
}

// routeTable maps a gRPC method ("/sluice.access.v1beta1.GrantService/ListGrants")
// to its route; it is read-only after loadRoutes.
type routeTable struct {
	routes map[string]*route
	names  *messageNames
}

// loadRoutes reads the services of the registered proto files
// (gatewayProtoFiles, written by build.sh).
func loadRoutes(files []string) (*routeTable, error) {
	t := &routeTable{routes: map[string]*route{}, names: &messageNames{}}
	for _, name := range files {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(name)
		if err != nil {
			return nil, fmt.Errorf("proto file %s is not registered: %v", name, err)
		}
		services := fd.Services()
		for i := 0; i < services.Len(); i++ {
			svc := services.Get(i)
			methods := svc.Methods()
			for k := 0; k < methods.Len(); k++ {
				m := methods.Get(k)
				r, err := routeOf(m)
				if err != nil {
					return nil, fmt.Errorf("%s/%s: %v", svc.FullName(), m.Name(), err)
				}
				if r != nil {
					t.routes["/"+string(svc.FullName())+"/"+string(m.Name())] = r
				}
			}
		}
	}
	return t, nil
}

// routeOf is m's HTTP route, nil when m has no google.api.http option.
func routeOf(m protoreflect.MethodDescriptor) (*route, error) {
	opts := m.Options()
	if opts == nil || !proto.HasExtension(opts, annotations.E_Http) {
		return nil, nil
	}
	rule, ok := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule)
	if !ok || rule == nil {
		return nil, fmt.Errorf("google.api.http is not an HttpRule")
	}
	r := &route{request: string(m.Input().Name()), descriptor: m.Input()}
	for _, rl := range append([]*annotations.HttpRule{rule}, rule.GetAdditionalBindings()...) {
		r.bindings = append(r.bindings, bindingOf(rl))
	}
	return r, nil
}

var pathVar = regexp.MustCompile(`\{([^}=]+)(=[^}]*)?\}`)

func bindingOf(rl *annotations.HttpRule) binding {
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
	for _, m := range pathVar.FindAllStringSubmatch(b.template, -1) {
		b.pathVars = append(b.pathVars, strings.TrimSpace(m[1]))
	}
	return b
}

// binding is r's binding with this method and template (as
// runtime.HTTPPathPattern gives it); nil when none is.
func (r *route) binding(method, template string) *binding {
	for i := range r.bindings {
		if b := &r.bindings[i]; b.method == method && b.template == template {
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
				template, _ := runtime.HTTPPathPattern(ctx)
				b := r.binding(ref.r.Method, template)
				if b == nil {
					// Not expected (the mux matched one of r's bindings):
					// still refuse what the message does not have.
					b = &binding{method: ref.r.Method, template: ref.r.URL.Path}
				}
				if msg := checkQuery(ref.r.URL.Query(), b, r.request, r.descriptor); msg != "" {
					return status.Error(codes.InvalidArgument, msg)
				}
			}
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

var mapParam = regexp.MustCompile(`^(.*)\[(.*)\]$`)

// checkQuery is "" when every parameter of q is one that binding b reads
// into the request message md (named `request`), else why not:
//   - `unknown field "<param>" in <Request>`: the message has no such field
//     (names as runtime.PopulateQueryParameters resolves them: proto or JSON
//     name, dotted paths into nested messages, `key[sub]` for maps);
//   - the field exists but this route takes it from the body or the path,
//     where grpc-gateway would silently ignore the query copy.
//
// Parameters are checked in sorted order, so the answer is stable.
func checkQuery(q map[string][]string, b *binding, request string, md protoreflect.MessageDescriptor) string {
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
		canonical, ok := resolveField(md, path)
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

// resolveField walks path through message md as
// runtime.PopulateQueryParameters does; it returns the path in proto names
// and whether every step names a field.
func resolveField(md protoreflect.MessageDescriptor, path []string) ([]string, bool) {
	var out []string
	for i, name := range path {
		if md == nil {
			return nil, false
		}
		fd := fieldByName(md, name)
		if fd == nil {
			return nil, false
		}
		out = append(out, string(fd.Name()))
		if i < len(path)-1 {
			md = fd.Message()
			if fd.IsMap() {
				md = nil
			}
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
