package main

// Response bodies: protojson with proto field names and unpopulated fields
// emitted (the options of grpc-gateway v1's JSONPb{OrigName, EmitDefaults},
// which Sluice's REST contract was recorded with), and with the commas of
// every build written the same way (see compactJSON).

import (
	"bytes"
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// responseJSON writes every response and error body.
var responseJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// spacedCommas: whether this binary's protojson writes ", " between
// elements. protojson decides it once per binary, from a hash of the
// executable (internal/detrand), to keep clients from depending on bytes;
// asked here once with a two-element list.
var spacedCommas = func() bool {
	yes := structpb.NewBoolValue(true)
	b, err := responseJSON.Marshal(&structpb.ListValue{Values: []*structpb.Value{yes, yes}})
	return err != nil || bytes.Contains(b, []byte(", "))
}()

// marshalProto is m in responseJSON, compact: where this binary's protojson
// spaces its commas (spacedCommas), json.Compact removes the spaces, so that
// the bytes of a response are the same from one build to the next.
func marshalProto(m proto.Message) ([]byte, error) {
	b, err := responseJSON.Marshal(m)
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

// Marshal writes a proto message with marshalProto and anything else (a
// non-message response_body field) as runtime.JSONPb would.
func (j *strictJSONPb) Marshal(v interface{}) ([]byte, error) {
	if m, ok := v.(proto.Message); ok {
		return marshalProto(m)
	}
	return j.JSONPb.Marshal(v)
}
