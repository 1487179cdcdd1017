/// @file Defines the collective consistency check: all ranks agree on the parameters of a collective call, or all throw.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include <mpi.h>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/communicator.hpp>

#include <redist/array/threads.hpp>
#include <redist/config.hpp>
#include <redist/detail/hash.hpp>
#include <redist/dist/fingerprint.hpp>

namespace redist::detail {

/// The fingerprint of a bound layout: an N-D layout's own (Dist<D...>::mapping::fingerprint), a
/// 1-D layout's linear_fingerprint (dist/fingerprint.hpp); both hash their LDDs with hash_ldds.
template <class M>
std::uint64_t layout_fingerprint(const M& m) {
  if constexpr (requires { { m.fingerprint() } -> std::convertible_to<std::uint64_t>; }) return m.fingerprint();
  else return linear_fingerprint(m);
}

/// A fingerprint of a schedule policy: its type and, when it has them, its parameters() (a
/// GEN_BLOCK policy's lmr_ratio, hybrid's d, modeled's machine, ...), which every rank must
/// pass alike as much as the policy itself.
template <class Policy>
std::uint64_t policy_fingerprint(const Policy& policy) {
  std::uint64_t h = hash_string(hash_seed, typeid(Policy).name());
  if constexpr (requires { policy.parameters(); })
    for (double v : policy.parameters()) h = hash_mix(h, std::bit_cast<std::uint64_t>(v));
  return h;
}

/// One parameter of a collective call, named for the error message. `value` is what the ranks
/// compare (the parameter itself or its hash); when it differs, the message names the lowest rank
/// whose value differs from rank 0's and, where they mean something to the caller, both ranks'
/// values: `value` itself (value_shown) or the numbers in `shown` (a hashed parameter's own numbers,
/// such as the extents).
struct Parameter {
  const char* name;
  std::uint64_t value;
  bool value_shown = false;
  std::span<const index_t> shown = {};
};

/// What rank `who` passed as parameter p (on the error path of agree: collective, two broadcasts),
/// for the message: "rank 0 passed 100, rank 3 passed 101", or "rank 3's differs from rank 0's".
inline std::string describe_difference(const boost::mpi::communicator& comm, const Parameter& p) {
  std::uint64_t first = p.value;
  MPI_Bcast(&first, 1, MPI_UINT64_T, 0, static_cast<MPI_Comm>(comm));
  int mine = p.value != first ? comm.rank() : comm.size(), who = 0;
  MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, static_cast<MPI_Comm>(comm));
  if (who == comm.size()) return {};
  std::string own;
  if (p.value_shown) {
    own = std::to_string(p.value);
  } else if (!p.shown.empty()) {
    for (index_t x : p.shown) own += (own.empty() ? "" : ", ") + std::to_string(x);
    if (p.shown.size() > 1) own = "{" + own + "}";
  }
  std::string at0 = own, at_who = own;
  boost::mpi::broadcast(comm, at0, 0);
  boost::mpi::broadcast(comm, at_who, who);
  if (at0.empty() || at_who.empty() || at0 == at_who)
    return "rank " + std::to_string(who) + "'s differs from rank 0's";
  return "rank 0 passed " + at0 + ", rank " + std::to_string(who) + " passed " + at_who;
}

/// Collective over comm, one all-reduce (two more only when some rank failed): every rank
/// passes the same list of parameter names and, when its own local checks failed, the error.
/// Throws redist::error on every rank if any rank failed (with the message of the lowest such
/// rank) or if some parameter differs between ranks (naming it); otherwise replaces each value of
/// `mins`, on every rank, by the smallest of all ranks (values agreed in the same all-reduce).
/// Allocates nothing when no rank failed and params and mins have at most 14 entries between
/// them (a repeated section(a, ...) or first run agrees without touching the heap).
inline void agree(const boost::mpi::communicator& comm, std::string_view call, std::span<const Parameter> params,
                  const std::optional<std::string>& local_error, std::span<std::uint64_t> mins) {
  const CallGuard guard(static_cast<MPI_Comm>(comm), call);
  const std::size_t k = params.size(), m = mins.size(), n = 2 * k + 1 + m;
  constexpr std::size_t few = 32;
  std::uint64_t mine_few[few], all_few[few];
  std::vector<std::uint64_t> mine_many, all_many;
  if (n > few) {
    mine_many.resize(n);
    all_many.resize(n);
  }
  const std::span<std::uint64_t> mine = mine_many.empty() ? std::span<std::uint64_t>(mine_few, n) : std::span<std::uint64_t>(mine_many);
  const std::span<std::uint64_t> all = all_many.empty() ? std::span<std::uint64_t>(all_few, n) : std::span<std::uint64_t>(all_many);
  for (std::size_t i = 0; i < k; ++i) {
    mine[i] = params[i].value;
    mine[k + i] = ~params[i].value;  // max of ~v is ~(min of v)
  }
  mine[2 * k] = local_error ? 1 : 0;
  for (std::size_t j = 0; j < m; ++j) mine[2 * k + 1 + j] = ~mins[j];
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_MAX,
                static_cast<MPI_Comm>(comm));
  if (all[2 * k] != 0) {
    int first = local_error ? comm.rank() : comm.size();
    int lowest = first;
    MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, static_cast<MPI_Comm>(comm));
    std::string message = local_error ? *local_error : std::string();
    boost::mpi::broadcast(comm, message, lowest);
    if (local_error) report_error(*local_error);
    const std::string where = "on rank " + std::to_string(lowest);
    if (message.find(where + ")") != std::string::npos || message.find(where + ",") != std::string::npos)
      report_error(message);  // the message names the rank already
    report_error(message + " (" + where + ")");
  }
  for (std::size_t i = 0; i < k; ++i)
    if (all[i] != ~all[k + i]) {
      const std::string which = describe_difference(comm, params[i]);  // collective: every rank finds i alike
      report_mismatch(std::string(call) + " requires every rank to pass the same " + params[i].name +
                      " (it differs between ranks" + (which.empty() ? "" : ": " + which) + ")");
    }
  for (std::size_t j = 0; j < m; ++j) mins[j] = ~all[2 * k + 1 + j];
}

/// agree with one value agreed as the smallest of all ranks', returned.
inline std::uint64_t agree(const boost::mpi::communicator& comm, std::string_view call,
                           std::span<const Parameter> params, const std::optional<std::string>& local_error,
                           std::uint64_t min_of = 0) {
  agree(comm, call, params, local_error, std::span<std::uint64_t>(&min_of, 1));
  return min_of;
}

}  // namespace redist::detail
