package main

// Response bodies: protojson (google.golang.org/protobuf, Debian's
// golang-google-protobuf-dev) instead of grpc-gateway 1.6.4's jsonpb 1.3.5.
// jsonpb parses every field's struct tags again for every message it writes:
// on a 1000-row list (about 1 MB of JSON) that was two thirds of the gateway's
// CPU and three quarters of the REST latency. protojson reads each message
// type's layout once. The output keeps jsonpb's options (proto field names,
// unpopulated fields emitted: OrigName, EmitDefaults).

import (
	"bytes"
	"encoding/json"

	protov1 "github.com/golang/protobuf/proto"
	structpb "github.com/golang/protobuf/ptypes/struct"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/runtime/protoimpl"
)

// responseJSON: the options that match runtime.JSONPb{OrigName: true,
// EmitDefaults: true}.
var responseJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// spacedCommas: whether this binary's protojson writes ", " between
// elements. protojson decides it once per binary, from a hash of the
// executable (internal/detrand), to keep clients from depending on bytes;
// asked here once with a two-element list.
var spacedCommas = func() bool {
	yes := &structpb.Value{Kind: &structpb.Value_BoolValue{BoolValue: true}}
	b, err := responseJSON.Marshal(protoimpl.X.ProtoMessageV2Of(&structpb.ListValue{Values: []*structpb.Value{yes, yes}}))
	return err != nil || bytes.Contains(b, []byte(", "))
}()

// Marshal writes a proto message with protojson and anything else as
// runtime.JSONPb would. Where this binary's protojson spaces its commas
// (spacedCommas), json.Compact removes the spaces, so that the bytes of a
// response are the same from one build to the next.
func (j *strictJSONPb) Marshal(v interface{}) ([]byte, error) {
	m, ok := v.(protov1.Message)
	if !ok {
		return j.JSONPb.Marshal(v)
	}
	b, err := responseJSON.Marshal(protoimpl.X.ProtoMessageV2Of(m))
	if err != nil || !spacedCommas {
		return b, err
	}
	var out bytes.Buffer
	out.Grow(len(b))
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
