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
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/runtime/protoimpl"
)

// responseJSON: the options that match runtime.JSONPb{OrigName: true,
// EmitDefaults: true}.
var responseJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// Marshal writes a proto message with protojson and anything else as
// runtime.JSONPb would. protojson inserts a space after some commas, chosen
// per binary on purpose (internal/detrand); json.Compact removes it so that
// the bytes of a response do not change from one build to the next.
func (j *strictJSONPb) Marshal(v interface{}) ([]byte, error) {
	m, ok := v.(protov1.Message)
	if !ok {
		return j.JSONPb.Marshal(v)
	}
	b, err := responseJSON.Marshal(protoimpl.X.ProtoMessageV2Of(m))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(b))
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
