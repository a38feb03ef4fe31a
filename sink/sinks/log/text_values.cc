#include "sink/sinks/log/text_values.h"

#include <charconv>

namespace sluice::sink {

void AppendTextDouble(double v, std::string* out) {
  // Shortest round-trip form, like protobuf's text format.
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr);
}

void AppendTextQuoted(absl::string_view s, std::string* out) {
  out->push_back('"');
  size_t run = 0;  // start of the pending run of plain bytes
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\' && c != '\'') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '"': out->append("\\\""); break;
      case '\'': out->append("\\'"); break;
      case '\\': out->append("\\\\"); break;
      default: {
        char oct[4] = {'\\', static_cast<char>('0' + (c >> 6)),
                       static_cast<char>('0' + ((c >> 3) & 7)), static_cast<char>('0' + (c & 7))};
        out->append(oct, 4);
      }
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

}  // namespace sluice::sink
