// One-round-trip queries on a SOCI session's libpq connection: PQexecParams
// with text parameters ($1, $2, ...) and text results. SOCI's rowset
// prepares, executes and deallocates a named statement (three round trips);
// the hot read paths of the access store use this instead. Errors are thrown
// as soci::postgresql_soci_error (with the SQLSTATE), so Pool::Run and
// db::FromSociError map them like any other statement's.
#ifndef SLUICE_SERVER_ACCESS_STORE_PG_EXEC_H_
#define SLUICE_SERVER_ACCESS_STORE_PG_EXEC_H_

#include <memory>
#include <string>
#include <vector>

#include <soci/soci.h>

struct pg_result;

namespace sluice::access {

// The rows of one result; columns read as text and converted on access.
class PgRows {
 public:
  class Row {
   public:
    // Column `col` as T (std::string, int, long long); NULL reads as ""/0.
    template <typename T>
    T get(int col) const;
    // Whether column `col` is the text "{}" or "[]" (an empty JSON object or
    // array as PostgreSQL prints jsonb), read without copying it: decoders
    // skip parsing such columns.
    bool IsEmptyJson(int col) const;

   private:
    friend class PgRows;
    Row(const pg_result* res, int row) : res_(res), row_(row) {}
    const pg_result* res_;
    int row_;
  };
  class Iterator {
   public:
    Row operator*() const { return Row(res_, row_); }
    Iterator& operator++() {
      ++row_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return row_ != o.row_; }

   private:
    friend class PgRows;
    Iterator(const pg_result* res, int row) : res_(res), row_(row) {}
    const pg_result* res_;
    int row_;
  };

  explicit PgRows(pg_result* res);
  ~PgRows();
  PgRows(PgRows&&) noexcept;
  PgRows(const PgRows&) = delete;
  PgRows& operator=(const PgRows&) = delete;

  int size() const;
  Iterator begin() const { return Iterator(res_, 0); }
  Iterator end() const { return Iterator(res_, size()); }
  Row operator[](int row) const { return Row(res_, row); }

 private:
  pg_result* res_;
};

// Runs `query` (placeholders $1..$n) with `params` on `sql`'s connection.
// Throws soci::postgresql_soci_error on failure.
PgRows PgExec(soci::session& sql, const std::string& query, const std::vector<std::string>& params);

// Like PgExec, as the named prepared statement `name` (a fixed identifier,
// one per distinct `query`): prepared on first use on each connection
// (PQprepare) and then executed without parsing or planning it again.
PgRows PgExecPrepared(soci::session& sql, const char* name, const std::string& query,
                      const std::vector<std::string>& params);

}  // namespace sluice::access

#endif  // SLUICE_SERVER_ACCESS_STORE_PG_EXEC_H_
