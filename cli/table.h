// `--output table` for sluicectl's list commands: the response's list (its
// first repeated message field) as aligned columns, one row per element.
#ifndef SLUICE_CLI_TABLE_H_
#define SLUICE_CLI_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

namespace sluice::cli {

// The columns shown for elements of message type `full_name` (e.g.
// "sluice.access.v1beta1.Grant"): dot paths into the element, such as
// "resource.urn". Types without a listed set show every singular scalar
// field of the element, in field order.
std::vector<std::string> TableColumns(const google::protobuf::Descriptor& element);

// The value at dot path `path` of `message` as one cell: strings as they
// are, numbers and bools in decimal/true|false, enums by name, timestamps in
// RFC 3339 (UTC), repeated scalars joined with ","; "" when absent.
std::string Cell(const google::protobuf::Message& message, const std::string& path);

// Writes `message`'s list as a table to `out` (upper-case header row, then
// one row per element, columns separated by two spaces) and returns true.
// Control characters (C0 incl. ESC, DEL, C1) and invalid UTF-8 are
// stripped from every cell, so server data cannot drive the terminal. It
// returns false, writing nothing, when `message` has no repeated message
// field (the caller prints it as JSON instead). A `total` field, when
// present, is printed after the rows as "total: N".
bool PrintTable(const google::protobuf::Message& message, std::ostream& out);

}  // namespace sluice::cli

#endif  // SLUICE_CLI_TABLE_H_
