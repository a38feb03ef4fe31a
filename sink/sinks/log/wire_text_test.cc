// AppendWireText against AppendMessageText: for random messages of every
// field type (proto2 and proto3), serialized canonically and then reordered,
// repeated, merged and mutated, the wire renderer either gives the same text
// as the reflection renderer on the parsed message or declines.
#include "sink/sinks/log/wire_text.h"

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sink/sinks/log/log_sink.h"

namespace sluice::sink {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::DynamicMessageFactory;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptorProto;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Every scalar type, an enum, nested and repeated messages, packed and
// unpacked repeated scalars, a oneof, a map, proto3 optional; once in a
// proto3 file and once in a proto2 file.
constexpr char kFields[] = R"(
  field { name: "f_double" number: 1 type: TYPE_DOUBLE label: LABEL_OPTIONAL }
  field { name: "f_float" number: 2 type: TYPE_FLOAT label: LABEL_OPTIONAL }
  field { name: "f_int64" number: 3 type: TYPE_INT64 label: LABEL_OPTIONAL }
  field { name: "f_uint64" number: 4 type: TYPE_UINT64 label: LABEL_OPTIONAL }
  field { name: "f_int32" number: 5 type: TYPE_INT32 label: LABEL_OPTIONAL }
  field { name: "f_fixed64" number: 6 type: TYPE_FIXED64 label: LABEL_OPTIONAL }
  field { name: "f_fixed32" number: 7 type: TYPE_FIXED32 label: LABEL_OPTIONAL }
  field { name: "f_bool" number: 8 type: TYPE_BOOL label: LABEL_OPTIONAL }
  field { name: "f_string" number: 9 type: TYPE_STRING label: LABEL_OPTIONAL }
  field { name: "f_bytes" number: 12 type: TYPE_BYTES label: LABEL_OPTIONAL }
  field { name: "f_uint32" number: 13 type: TYPE_UINT32 label: LABEL_OPTIONAL }
  field { name: "f_enum" number: 14 type: TYPE_ENUM label: LABEL_OPTIONAL type_name: ".t.Color" }
  field { name: "f_sfixed32" number: 15 type: TYPE_SFIXED32 label: LABEL_OPTIONAL }
  field { name: "f_sfixed64" number: 16 type: TYPE_SFIXED64 label: LABEL_OPTIONAL }
  field { name: "f_sint32" number: 17 type: TYPE_SINT32 label: LABEL_OPTIONAL }
  field { name: "f_sint64" number: 18 type: TYPE_SINT64 label: LABEL_OPTIONAL }
  field { name: "f_child" number: 19 type: TYPE_MESSAGE label: LABEL_OPTIONAL type_name: ".t.Child" }
  field { name: "r_int32" number: 20 type: TYPE_INT32 label: LABEL_REPEATED }
  field { name: "r_double" number: 21 type: TYPE_DOUBLE label: LABEL_REPEATED options { packed: false } }
  field { name: "r_string" number: 22 type: TYPE_STRING label: LABEL_REPEATED }
  field { name: "r_child" number: 23 type: TYPE_MESSAGE label: LABEL_REPEATED type_name: ".t.Child" }
  field { name: "r_enum" number: 24 type: TYPE_ENUM label: LABEL_REPEATED type_name: ".t.Color" }
  field { name: "r_sint64" number: 25 type: TYPE_SINT64 label: LABEL_REPEATED options { packed: true } }
  field { name: "o_string" number: 30 type: TYPE_STRING label: LABEL_OPTIONAL oneof_index: 0 }
  field { name: "o_int64" number: 31 type: TYPE_INT64 label: LABEL_OPTIONAL oneof_index: 0 }
  field { name: "m_labels" number: 40 type: TYPE_MESSAGE label: LABEL_REPEATED type_name: ".t.Msg.MLabelsEntry" }
  nested_type {
    name: "MLabelsEntry"
    field { name: "key" number: 1 type: TYPE_STRING label: LABEL_OPTIONAL }
    field { name: "value" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL }
    options { map_entry: true }
  }
  oneof_decl { name: "choice" }
)";

constexpr char kChild[] = R"(
  message_type {
    name: "Child"
    field { name: "a" number: 1 type: TYPE_INT32 label: LABEL_OPTIONAL }
    field { name: "s" number: 2 type: TYPE_STRING label: LABEL_OPTIONAL }
    field { name: "grand" number: 3 type: TYPE_MESSAGE label: LABEL_OPTIONAL type_name: ".t.Child" }
  }
  enum_type {
    name: "Color"
    value { name: "COLOR_UNSPECIFIED" number: 0 }
    value { name: "RED" number: 1 }
    value { name: "GREEN" number: 2 }
  }
)";

const Descriptor* Build(DescriptorPool* pool, const std::string& syntax) {
  FileDescriptorProto file;
  std::string text = "name: \"t_" + syntax + ".proto\" package: \"t\" syntax: \"" + syntax +
                     "\" " + kChild + " message_type { name: \"Msg\" " + kFields + " }";
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &file)) << text;
  const auto* fd = pool->BuildFile(file);
  EXPECT_NE(fd, nullptr);
  return fd == nullptr ? nullptr : fd->FindMessageTypeByName("Msg");
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int Int(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  std::string Str() {
    static const char* kPool[] = {"", "a", "Pune", "quote\"d", "tab\tnew\nline", "\xc3\xa9t\xc3\xa9",
                                  "back\\slash", "it's"};
    return kPool[Int(8)];
  }

  void Fill(Message* m, int depth) {
    const Reflection* r = m->GetReflection();
    const Descriptor* d = m->GetDescriptor();
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (Int(3) == 0) continue;
      const int n = f->is_repeated() ? Int(4) : 1;
      for (int k = 0; k < n; ++k) Set(m, r, f, depth);
    }
  }

 private:
  void Set(Message* m, const Reflection* r, const FieldDescriptor* f, int depth) {
    const bool rep = f->is_repeated();
    // Small values, zero often: defaults are the interesting case.
    const int64_t v = Int(4) == 0 ? 0 : static_cast<int64_t>(rng_()) - (1LL << 31);
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        rep ? r->AddInt32(m, f, static_cast<int32_t>(v)) : r->SetInt32(m, f, static_cast<int32_t>(v));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        rep ? r->AddInt64(m, f, v * 7919) : r->SetInt64(m, f, v * 7919);
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        rep ? r->AddUInt32(m, f, static_cast<uint32_t>(v)) : r->SetUInt32(m, f, static_cast<uint32_t>(v));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        rep ? r->AddUInt64(m, f, static_cast<uint64_t>(v) * 31) : r->SetUInt64(m, f, static_cast<uint64_t>(v) * 31);
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE: {
        const double x = Int(5) == 0 ? -0.0 : v / 3.0;
        rep ? r->AddDouble(m, f, x) : r->SetDouble(m, f, x);
        break;
      }
      case FieldDescriptor::CPPTYPE_FLOAT:
        rep ? r->AddFloat(m, f, v / 7.0f) : r->SetFloat(m, f, v / 7.0f);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        rep ? r->AddBool(m, f, v != 0) : r->SetBool(m, f, v != 0);
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        rep ? r->AddEnumValue(m, f, Int(3)) : r->SetEnumValue(m, f, Int(3));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        rep ? r->AddString(m, f, Str()) : r->SetString(m, f, Str());
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        if (depth > 3) return;
        Message* sub = rep ? r->AddMessage(m, f) : r->MutableMessage(m, f);
        Fill(sub, depth + 1);
        break;
      }
    }
  }

  std::mt19937 rng_;
};

// Field-by-field serializations of `m` (one string per present field).
std::vector<std::string> FieldChunks(const Message& m, DynamicMessageFactory* factory) {
  std::vector<const FieldDescriptor*> fields;
  m.GetReflection()->ListFields(m, &fields);
  std::vector<std::string> chunks;
  for (const FieldDescriptor* f : fields) {
    std::unique_ptr<Message> one(factory->GetPrototype(m.GetDescriptor())->New());
    one->CopyFrom(m);
    const Reflection* r = one->GetReflection();
    std::vector<const FieldDescriptor*> all;
    r->ListFields(*one, &all);
    for (const FieldDescriptor* g : all) {
      if (g != f) r->ClearField(one.get(), g);
    }
    chunks.push_back(one->SerializeAsString());
  }
  return chunks;
}

struct Tally {
  int from_wire = 0, declined = 0, unparsed = 0;
};

// The property: where AppendWireText renders, it renders what reflection does.
void Check(const Descriptor* d, DynamicMessageFactory* factory, const std::string& bytes,
           Tally* tally) {
  std::unique_ptr<Message> parsed(factory->GetPrototype(d)->New());
  if (!parsed->ParseFromString(bytes)) {
    ++tally->unparsed;
    return;
  }
  std::string want;
  AppendMessageText(*parsed, &want);
  std::string got = "prefix";
  if (AppendWireText(d, bytes, &got)) {
    ++tally->from_wire;
    EXPECT_EQ(got, "prefix" + want) << d->file()->name() << " bytes of size " << bytes.size();
  } else {
    ++tally->declined;
    EXPECT_EQ(got, "prefix") << "a declined render leaves the output as it was";
  }
}

class WireTextTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WireTextTest, RendersWhatReflectionRendersOrDeclines) {
  DescriptorPool pool;
  const Descriptor* d = Build(&pool, GetParam());
  ASSERT_NE(d, nullptr);
  DynamicMessageFactory factory(&pool);
  Gen gen(GetParam() == "proto3" ? 3 : 2);
  Tally canonical, reordered, merged, mutated;
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::unique_ptr<Message> m(factory.GetPrototype(d)->New());
    gen.Fill(m.get(), 0);
    const std::string bytes = m->SerializeAsString();
    Check(d, &factory, bytes, &canonical);

    std::vector<std::string> chunks = FieldChunks(*m, &factory);
    std::shuffle(chunks.begin(), chunks.end(), rng);
    std::string shuffled;
    for (const std::string& c : chunks) shuffled += c;
    Check(d, &factory, shuffled, &reordered);

    std::unique_ptr<Message> other(factory.GetPrototype(d)->New());
    gen.Fill(other.get(), 0);
    Check(d, &factory, bytes + other->SerializeAsString(), &merged);

    std::string flipped = bytes;
    if (!flipped.empty()) {
      flipped[rng() % flipped.size()] ^= static_cast<char>(1 << (rng() % 8));
      Check(d, &factory, flipped, &mutated);
      Check(d, &factory, bytes.substr(0, rng() % bytes.size()), &mutated);
    }
  }
  std::printf("%s: canonical %d from wire, %d declined; reordered %d/%d; merged %d/%d; "
              "mutated %d/%d (%d unparsed)\n",
              GetParam().c_str(), canonical.from_wire, canonical.declined, reordered.from_wire,
              reordered.declined, merged.from_wire, merged.declined, mutated.from_wire,
              mutated.declined, mutated.unparsed);
  // Canonical bytes without a map field render from the wire: the fast path
  // is the common one, not the exception.
  EXPECT_GT(canonical.from_wire, 1000);
  EXPECT_GT(reordered.declined, 0);
  EXPECT_GT(merged.declined, 0);
}

INSTANTIATE_TEST_SUITE_P(Syntax, WireTextTest, ::testing::Values("proto2", "proto3"));

TEST(WireText, DeclinesWhatOnePassCannotTell) {
  DescriptorPool pool;
  const Descriptor* d = Build(&pool, "proto3");
  ASSERT_NE(d, nullptr);
  std::string out;
  // f_int32 (5) = 0 explicitly: reflection lists no such field.
  EXPECT_FALSE(AppendWireText(d, std::string("\x28\x00", 2), &out));
  // f_int32 = 1 twice: the last wins.
  EXPECT_FALSE(AppendWireText(d, std::string("\x28\x01\x28\x02", 4), &out));
  // f_int32 (5) after f_uint32 (13): out of number order.
  EXPECT_FALSE(AppendWireText(d, std::string("\x68\x01\x28\x01", 4), &out));
  // Truncated varint.
  EXPECT_FALSE(AppendWireText(d, std::string("\x28\x80", 2), &out));
  EXPECT_EQ(out, "");
  // And renders the plain case.
  EXPECT_TRUE(AppendWireText(d, std::string("\x28\x07\x4a\x02hi", 6), &out));
  EXPECT_EQ(out, "f_int32: 7 f_string: \"hi\"");
}

}  // namespace
}  // namespace sluice::sink
