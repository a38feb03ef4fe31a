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

// `size` 0 → `default_size`; InvalidArgument naming `size` above
// `max_size`, or `offset` above INT32_MAX.
inline absl::StatusOr<Page> ParsePage(uint32_t size, uint32_t offset, int default_size,
                                      int max_size) {
  if (size > static_cast<uint32_t>(max_size)) {
    return absl::InvalidArgumentError(absl::StrCat("size: at most ", max_size));
  }
  if (offset > static_cast<uint32_t>(INT32_MAX)) {
    return absl::InvalidArgumentError("offset: at most 2147483647");
  }
  Page p;
  p.size = size == 0 ? default_size : static_cast<int>(size);
  p.offset = static_cast<int>(offset);
  return p;
}

// ParsePage with kDefaultPageSize and kMaxPageSize.
inline absl::StatusOr<Page> ParsePage(uint32_t size, uint32_t offset) {
  return ParsePage(size, offset, kDefaultPageSize, kMaxPageSize);
}

// The access API's page (Guardian returns every match when size is unset):
// `size` 0 → `max_size` (access.max_page_size); above it InvalidArgument.
inline absl::StatusOr<Page> ParseListPage(uint32_t size, uint32_t offset, int max_size) {
  return ParsePage(size, offset, max_size, max_size);
}

}  // namespace sluice

#endif  // SLUICE_COMMON_PAGING_H_
