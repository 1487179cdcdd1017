/// @file Defines the version, the index type, REDIST_EXPECTS and the error type of redist.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#define REDIST_VERSION_MAJOR 0
#define REDIST_VERSION_MINOR 1
#define REDIST_VERSION_PATCH 0

namespace redist {

/// Global and local element indices and counts: 64-bit and signed throughout, so that
/// differences of indices are ordinary arithmetic and sizes beyond 2^32 need no special case.
using index_t = std::int64_t;

/// Thrown for every run-time precondition violation. Its message names the call and the
/// parameter: "redist::<call>(<args>) requires <arg> to <requirement>".
class error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A redist::error for ranks that disagree: a collective call whose ranks passed different values
/// of a parameter every rank must pass alike (the message names it, the first differing rank and
/// both values). Thrown on every rank, before any data moves.
class mismatch_error : public error {
 public:
  using error::error;
};

namespace detail {
/// Not constexpr on purpose: reached during constant evaluation it stops compilation at the
/// message (fmt's report_error); reached at run time it throws redist::error.
[[noreturn]] inline void report_error(const std::string& message) { throw error(message); }
/// Throws redist::mismatch_error (ranks that disagree on a parameter).
[[noreturn]] inline void report_mismatch(const std::string& message) { throw mismatch_error(message); }
}  // namespace detail

}  // namespace redist

/// Run-time precondition. Define REDIST_EXPECTS before including redist to replace the handler.
#ifndef REDIST_EXPECTS
#define REDIST_EXPECTS(cond, message)                              \
  do {                                                             \
    if (!(cond)) ::redist::detail::report_error(message);          \
  } while (false)
#endif
