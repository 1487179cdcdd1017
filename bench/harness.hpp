/// @file Defines the harness of redist-bench: Method (one way to redistribute), its Cost, and Harness, which verifies and times methods interleaved.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/operations.hpp>

#include <redist/config.hpp>

namespace redist::bench {

/// The value of global element g in every source array: f(g), distinct for every g < 2^50.
inline double value_of(index_t g) noexcept { return 1.0 + 0.25 * static_cast<double>(g); }
/// What a destination holds before the warm-up: a value f never takes.
inline constexpr double cleared_value = -1.0;

/// Linear id of an N-D global multi-index (column-major over the extents): the value_of argument of N-D arrays.
template <class E>
index_t global_id(const E& g, const E& extents) noexcept {
  index_t id = 0;
  for (std::size_t d = g.size(); d-- > 0;) id = id * extents[d] + g[d];
  return id;
}

/// Calls f(local multi-index, offset in local()) for every local element of the N-D array a.
template <class A, class F>
void for_each_local_nd(const A& a, F&& f) {
  const auto e = a.local_extents();
  for (index_t x : e)
    if (x == 0) return;
  const auto s = a.local_strides();
  auto l = e;
  for (auto& x : l) x = 0;
  while (true) {
    index_t off = 0;
    for (std::size_t d = 0; d < l.size(); ++d) off += l[d] * s[d];
    f(l, off);
    std::size_t d = 0;
    while (d < l.size() && ++l[d] == e[d]) l[d++] = 0;
    if (d == l.size()) return;
  }
}

/// True when every local element of a holds value_of(its global index) (this rank only); for
/// N-D arrays, of the linear id of its global multi-index.
template <class A>
bool holds_values(const A& a) {
  const auto local = a.local();
  if constexpr (requires { a.local_extents(); }) {
    bool ok = true;
    for_each_local_nd(a, [&](const auto& l, index_t off) {
      ok = ok && local[off] == value_of(global_id(a.global_index(l), a.extents()));
    });
    return ok;
  } else {
    for (index_t l = 0; l < a.local_size(); ++l)
      if (local[l] != value_of(a.global_index(l))) return false;
    return true;
  }
}

/// What one call of a method costs on this rank; the harness reduces it over ranks.
struct Cost {
  std::int64_t bytes_sent = 0;     ///< to other ranks
  std::int64_t messages = 0;       ///< to other ranks
  std::int64_t steps = 0;          ///< of its schedule (1 for a collective call)
  std::int64_t scratch_bytes = 0;  ///< buffers the method needs besides the source and destination
};

/// One way of moving a source array into a destination layout, bound to its own destination.
/// Every member function but verify is collective in the sense that all ranks call it together.
class Method {
 public:
  virtual ~Method() = default;
  /// True when setup does index or datatype work that the timed calls reuse (its time is plan_ms).
  virtual bool has_setup() const { return false; }
  /// The work done once, outside the timed loop. May throw: then the method does not apply.
  virtual void setup() {}
  /// One timed call.
  virtual void run() = 0;
  /// Fills the destination with cleared_value.
  virtual void clear() = 0;
  /// True when this rank's destination holds f(global index) everywhere.
  virtual bool verify() const = 0;
  /// The method's cost on this rank; called after the warm-up (may run the method once more).
  virtual Cost cost() = 0;
  /// What redist decided for it (redist::explain(...).str(), this rank's), or "" for a baseline.
  virtual std::string explain() { return {}; }
};

/// A method by name, made on demand (its destination is allocated only when it is measured).
struct MethodEntry {
  std::string name;
  std::function<std::unique_ptr<Method>()> make;
};

/// One CSV row: a method on a case, reduced over ranks.
struct Row {
  std::string case_name;
  std::string method;
  int np = 1;
  index_t elements = 0;
  std::int64_t bytes_moved = 0;
  std::int64_t messages = 0;
  std::int64_t steps = 0;
  double plan_ms = 0;
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  std::int64_t scratch_bytes = 0;
  bool ok = false;
};

inline constexpr const char* csv_header =
    "case,method,np,elements,bytes_moved,messages,steps,plan_ms,median_ms,min_ms,max_ms,scratch_bytes,check";

inline void write_csv_row(std::FILE* out, const Row& r) {
  std::fprintf(out, "%s,%s,%d,%lld,%lld,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%lld,%s\n", r.case_name.c_str(),
               r.method.c_str(), r.np, static_cast<long long>(r.elements), static_cast<long long>(r.bytes_moved),
               static_cast<long long>(r.messages), static_cast<long long>(r.steps), r.plan_ms, r.median_ms,
               r.min_ms, r.max_ms, static_cast<long long>(r.scratch_bytes), r.ok ? "ok" : "fail");
}

/// Measures the methods of a case: setup (timed once), one warm-up call each followed by an
/// element-by-element check, then `reps` repetitions in which every method runs once, in turn,
/// each call after a barrier and timed as the maximum over ranks.
class Harness {
 public:
  Harness(const boost::mpi::communicator& comm, int reps, std::vector<std::string> methods, bool explain = false)
      : comm_{comm}, reps_{reps}, methods_{std::move(methods)}, explain_{explain} {}

  const boost::mpi::communicator& comm() const noexcept { return comm_; }

  /// The rows of the selected entries that apply (all of them when no method was selected).
  std::vector<Row> measure(const std::string& case_name, index_t n, const std::vector<MethodEntry>& entries) {
    std::vector<std::string> names;
    std::vector<std::unique_ptr<Method>> methods;
    std::vector<double> plan_ms;
    for (const MethodEntry& e : entries) {
      if (!selected(e.name)) continue;
      auto m = e.make();
      std::string why;
      const double ms = 1e3 * max_seconds([&] {
        try {
          m->setup();
        } catch (const std::exception& ex) {
          why = ex.what();
        }
      });
      if (!boost::mpi::all_reduce(comm_, why.empty(), std::logical_and<bool>())) {
        if (comm_.rank() == 0) std::fprintf(stderr, "%s: %s does not apply: %s\n", case_name.c_str(), e.name.c_str(),
                                          why.empty() ? "setup failed on another rank" : why.c_str());
        continue;
      }
      names.push_back(e.name);
      plan_ms.push_back(m->has_setup() ? ms : 0.0);
      methods.push_back(std::move(m));
    }
    const std::size_t count = methods.size();

    // Warm-up and check.
    std::vector<bool> ok(count);
    for (std::size_t k = 0; k < count; ++k) {
      methods[k]->clear();
      comm_.barrier();
      methods[k]->run();
      ok[k] = boost::mpi::all_reduce(comm_, methods[k]->verify(), std::logical_and<bool>());
    }

    // Repetitions: every method once per repetition, starting with a different one each time.
    std::vector<std::vector<double>> ms(count);
    for (int r = 0; r < reps_; ++r)
      for (std::size_t j = 0; j < count; ++j) {
        const std::size_t k = (static_cast<std::size_t>(r) + j) % count;
        ms[k].push_back(1e3 * max_seconds([&] { methods[k]->run(); }));
      }

    std::vector<Row> rows;
    for (std::size_t k = 0; k < count; ++k) {
      const Cost c = methods[k]->cost();
      Row row;
      row.case_name = case_name;
      row.method = names[k];
      row.np = comm_.size();
      row.elements = n;
      row.bytes_moved = boost::mpi::all_reduce(comm_, c.bytes_sent, std::plus<std::int64_t>());
      row.messages = boost::mpi::all_reduce(comm_, c.messages, std::plus<std::int64_t>());
      row.steps = boost::mpi::all_reduce(comm_, c.steps, boost::mpi::maximum<std::int64_t>());
      row.scratch_bytes = boost::mpi::all_reduce(comm_, c.scratch_bytes, boost::mpi::maximum<std::int64_t>());
      row.plan_ms = plan_ms[k];
      std::sort(ms[k].begin(), ms[k].end());
      const std::size_t R = ms[k].size();
      if (R > 0) {
        row.median_ms = R % 2 == 1 ? ms[k][R / 2] : 0.5 * (ms[k][R / 2 - 1] + ms[k][R / 2]);
        row.min_ms = ms[k].front();
        row.max_ms = ms[k].back();
      }
      row.ok = ok[k];
      rows.push_back(row);
      // --explain: what redist decided, as rank 0 sees it, to standard error (the CSV stays clean).
      if (explain_) {
        const std::string e = methods[k]->explain();
        if (comm_.rank() == 0 && !e.empty()) std::fprintf(stderr, "%s / %s (rank 0):\n%s", case_name.c_str(), names[k].c_str(), e.c_str());
      }
    }
    return rows;
  }

 private:
  bool selected(const std::string& name) const {
    return methods_.empty() || std::find(methods_.begin(), methods_.end(), name) != methods_.end();
  }

  /// Seconds of the slowest rank for f(), started together after a barrier.
  template <class F>
  double max_seconds(F&& f) {
    comm_.barrier();
    const double t0 = MPI_Wtime();
    f();
    return boost::mpi::all_reduce(comm_, MPI_Wtime() - t0, boost::mpi::maximum<double>());
  }

  boost::mpi::communicator comm_;
  int reps_;
  std::vector<std::string> methods_;
  bool explain_ = false;
};

}  // namespace redist::bench
