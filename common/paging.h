// Page parameters of list APIs: every list has a default page size and a
// maximum (security review L2), and offsets that do not fit an int are
// refused instead of reaching SQL as a negative OFFSET (review L3).
#ifndef SLUICE_COMMON_PAGING_H_
#define SLUICE_COMMON_PAGING_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace sluice {

inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 1000;

// One page of a list: LIMIT `size` OFFSET `offset`.
struct Page {
  int size = kDefaultPageSize;
  int offset = 0;
};

// `size` 0 → kDefaultPageSize; InvalidArgument naming `size` above
// kMaxPageSize, or `offset` above INT32_MAX.
inline absl::StatusOr<Page> ParsePage(uint32_t size, uint32_t offset) {
  if (size > static_cast<uint32_t>(kMaxPageSize)) {
    return absl::InvalidArgumentError(absl::StrCat("size: at most ", kMaxPageSize));
  }
  if (offset > static_cast<uint32_t>(INT32_MAX)) {
    return absl::InvalidArgumentError("offset: at most 2147483647");
  }
  Page p;
  p.size = size == 0 ? kDefaultPageSize : static_cast<int>(size);
  p.offset = static_cast<int>(offset);
  return p;
}

}  // namespace sluice

#endif  // SLUICE_COMMON_PAGING_H_
