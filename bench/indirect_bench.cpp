// indirect-bench: redist's Indirect layouts (index lists with ghosts, partial values) against the
// two things their users would otherwise write: a hand-written rendezvous with MPI_Alltoall(v)
// plus pack, one MPI_Alltoallv and unpack by index lists, and Trilinos' Tpetra (Map, Import,
// Export, Vector::doImport/doExport; built with -Dtpetra=enabled). Three cases of n doubles:
//   permutation      Block -> Indirect<>   (lists: a random permutation of [0, n) in P equal parts)
//   halo_import      Block -> Indirect<>   (lists: the block and 3 ghosts each side; Tpetra's Import)
//   halo_export_add  Indirect<std::plus<>> -> Block   (the halo lists' partial values summed; Export ADD)
//   halo_update      Block -> Indirect<> in place: the halo list's array's owned part (its first
//                    elements) is the source, only the ghosts move (redist: `u = owned`, owned a
//                    DistView over u's storage; Tpetra: the source an offset view of the target
//                    Vector; hand-written: the ghosts alone; PETSc's VecGhostUpdate)
//   halo_sum_update  Indirect<std::plus<>> -> Block in place: the halo list's partial values summed
//                    into its own owned part (redist: `owned = c`, owned a DistView over c's
//                    storage; Tpetra: doExport ADD into the offset view of the source Vector;
//                    hand-written: the ghosts' contributions alone; PETSc's VecGhostUpdate with
//                    ADD_VALUES, SCATTER_REVERSE). Each run adds the ghosts' contributions again, as
//                    PETSc's does: the checks count the runs since the values were filled.
// Plan time (index work, collective) and execution time (median of --reps interleaved rounds after
// --warmup untimed ones, the slowest rank's) per method, every result checked element by element on every rank after the
// warm-up and after the timed rounds; the peak RSS after each method's plan and after its first
// execution. `mpirun -n 4 indirect-bench --csv bench/indirect_results.csv`.
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <redist/redist.hpp>

#ifdef REDIST_BENCH_HAVE_TPETRA
#include <Teuchos_OrdinalTraits.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_Export.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_Vector.hpp>
#endif

#include "cli.hpp"

namespace mpi = boost::mpi;
using redist::index_t;

namespace {

// ---------------------------------------------------------------------------------------------
// The cases: layouts, values, and what every destination must hold.

/// The value of global element g in every source array (exact in a double for g < 2^50).
double value_of(index_t g) { return 1.0 + 0.25 * static_cast<double>(g); }
/// What a destination holds before the warm-up: a value no check accepts.
constexpr double cleared_value = -1.0;
/// The width of the halo: ghosts on each side of a rank's block.
constexpr index_t ghost_width = 3;

enum class CaseKind { permutation, halo_import, halo_export_add, halo_update, halo_sum_update };

const char* case_name(CaseKind k) {
  switch (k) {
    case CaseKind::permutation: return "permutation";
    case CaseKind::halo_import: return "halo_import";
    case CaseKind::halo_export_add: return "halo_export_add";
    case CaseKind::halo_update: return "halo_update";
    case CaseKind::halo_sum_update: return "halo_sum_update";
  }
  return "?";
}

/// Block of ceil(n / P) per rank, as redist::Block (and the directory) cut it: rank r's [lo, hi).
struct BlockCut {
  index_t n = 0, b = 1;
  int p = 1;
  BlockCut(index_t n_, int p_) : n{n_}, b{std::max<index_t>(1, (n_ + p_ - 1) / p_)}, p{p_} {}
  index_t lo(int r) const { return std::min(n, b * r); }
  index_t hi(int r) const { return std::min(n, b * r + b); }
  int owner(index_t g) const { return static_cast<int>(g / b); }
};

/// Rank r's halo list: its block in order, then the ghosts left of it, then those right of it.
std::vector<index_t> halo_list(const BlockCut& cut, int r) {
  const index_t lo = cut.lo(r), hi = cut.hi(r);
  std::vector<index_t> l;
  if (lo == hi) return l;
  for (index_t g = lo; g < hi; ++g) l.push_back(g);
  for (index_t g = std::max<index_t>(0, lo - ghost_width); g < lo; ++g) l.push_back(g);
  for (index_t g = hi; g < std::min(cut.n, hi + ghost_width); ++g) l.push_back(g);
  return l;
}

/// Rank r's part of one random permutation of [0, n) (the same seed on every rank): entries
/// [lo(r), hi(r)) of the shuffled sequence, in that (random) order.
std::vector<index_t> permutation_list(const BlockCut& cut, int r, std::uint64_t seed) {
  std::vector<index_t> all(static_cast<std::size_t>(cut.n));
  std::iota(all.begin(), all.end(), index_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  return {all.begin() + cut.lo(r), all.begin() + cut.hi(r)};
}

/// Rank q's partial value of global element g in halo_export_add: the owner's is value_of(g),
/// a ghost holder's a small integer, so that every sum is exact in any order.
double contribution(const BlockCut& cut, index_t g, int q) {
  return cut.owner(g) == q ? value_of(g) : static_cast<double>((g * 7 + q * 13) % 17 + 1);
}

/// Whether rank q lists g in its halo list.
bool halo_holds(const BlockCut& cut, int q, index_t g) {
  const index_t lo = cut.lo(q), hi = cut.hi(q);
  return lo < hi && g >= std::max<index_t>(0, lo - ghost_width) && g < std::min(cut.n, hi + ghost_width);
}

/// The sum of every holder's contribution to g (what the block owner of g must hold after the export).
double export_sum(const BlockCut& cut, index_t g) {
  const int o = cut.owner(g);
  const int reach = static_cast<int>(ghost_width / cut.b) + 1;  // ranks whose ghosts can reach g
  double s = 0;
  for (int q = std::max(0, o - reach); q <= std::min(cut.p - 1, o + reach); ++q)
    if (halo_holds(cut, q, g)) s += contribution(cut, g, q);
  return s;
}

/// One case as this rank sees it: the block cut and this rank's list (the Indirect side).
struct Case {
  CaseKind kind;
  index_t n;
  BlockCut cut;
  int rank;
  std::vector<index_t> list;
  /// True when the list is the destination (an import), false when it is the source (the exports).
  bool list_is_destination() const { return !sums(); }
  /// True when the list holds partial values summed into the block (the exports).
  bool sums() const { return kind == CaseKind::halo_export_add || kind == CaseKind::halo_sum_update; }
  /// True when the block is the list array's owned part, in its storage (halo_update,
  /// halo_sum_update): the source's of an import, the destination's of the sums.
  bool in_place() const { return kind == CaseKind::halo_update || kind == CaseKind::halo_sum_update; }
  /// This rank's block: its own elements, the first of its halo list.
  index_t block() const { return cut.hi(rank) - cut.lo(rank); }
};

// ---------------------------------------------------------------------------------------------
// Time and memory.

/// The slowest rank's value.
double max_over(MPI_Comm comm, double x) {
  double m = 0;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

/// The peak resident set of this process (getrusage's ru_maxrss), in MiB.
double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

/// The resident set of this process now (/proc/self/statm), in MiB.
double current_rss_mib() {
  std::ifstream f("/proc/self/statm");
  long long pages = 0, resident = 0;
  f >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

/// The highest ru_maxrss this process has seen, over the resets below.
double process_peak_mib = 0;

/// Sets the high-water mark that ru_maxrss reports to the resident set now (Linux's
/// /proc/self/clear_refs, value 5), so that the next reading is one method's peak; false where
/// the kernel refuses (the readings then are the process's peak so far).
bool reset_peak_rss() {
  process_peak_mib = std::max(process_peak_mib, peak_rss_mib());
  std::ofstream f("/proc/self/clear_refs");
  if (!f) return false;
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

/// A median (of a copy).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// ---------------------------------------------------------------------------------------------
// Methods: one way to do a case. setup (not timed), plan (timed, collective), fill (not timed),
// execute (timed, collective), check (this rank). Parts of the plan go to `parts` as name, ms.

class Method {
 public:
  virtual ~Method() = default;
  virtual const char* name() const = 0;
  /// Drops the plan and what it built (before a plan is timed again).
  virtual void release() = 0;
  /// Collective; appends (part, this rank's seconds) to parts.
  virtual void plan(std::vector<std::pair<std::string, double>>& parts) = 0;
  /// The source holds its values, the destination cleared_value (not timed).
  virtual void fill() = 0;
  /// Collective: the redistribution.
  virtual void execute() = 0;
  /// Whether every destination element on this rank holds its value.
  virtual bool check() const = 0;
};

/// Whether dst (this rank's destination, local order) holds what the case asks for after `runs`
/// executions since the source was filled (halo_sum_update adds the ghosts' contributions to the
/// owner's own at each run). at(l) is the global index of dst's local element l.
template <class At>
bool check_destination(const Case& c, const double* dst, index_t size, At at, int runs = 1) {
  for (index_t l = 0; l < size; ++l) {
    const index_t g = at(l);
    double want = c.sums() ? export_sum(c.cut, g) : value_of(g);
    if (c.kind == CaseKind::halo_sum_update) {
      const double own = contribution(c.cut, g, c.cut.owner(g));
      want = own + static_cast<double>(runs) * (want - own);
    }
    if (dst[l] != want) return false;
  }
  return true;
}

/// This rank's source values (local order); at(l) is the global index of its local element l.
template <class At>
void fill_source(const Case& c, double* src, index_t size, At at) {
  for (index_t l = 0; l < size; ++l) {
    const index_t g = at(l);
    src[l] = c.sums() ? contribution(c.cut, g, c.rank) : value_of(g);
  }
}

double seconds_since(double t0) { return MPI_Wtime() - t0; }

// --- redist ---------------------------------------------------------------------------------

/// redist: the Indirect array (its directory) made and make_plan (both timed: the plan), then
/// `b = a`, which runs the plan make_plan left in b's cache (b's cache was empty): the warm-up's
/// time, first_ms, is the plan's first run and its decision, not a second plan.
class RedistMethod final : public Method {
 public:
  using ListDst = redist::DistArray<double, redist::Indirect<>>;
  using ListSrc = redist::DistArray<double, redist::Indirect<std::plus<>>>;
  using BlockArray = redist::DistArray<double, redist::Block>;

  /// The Indirect distributions (this rank's list, copied into them) are made here, not timed, as
  /// the Tpetra method's global ordinals are.
  RedistMethod(const mpi::communicator& world, const Case& c)
      : world_{world}, c_{c}, dst_dist_{c.list_is_destination() ? redist::Indirect<>{c.list} : redist::Indirect<>{}},
        src_dist_{c.list_is_destination() ? redist::Indirect<std::plus<>>{} : redist::Indirect<std::plus<>>{c.list}} {
    if (!c_.in_place()) block_ = std::make_unique<BlockArray>(world_, c_.n);  // the Block side needs no plan
  }
  const char* name() const override { return "redist"; }
  void release() override {
    import_plan_.reset();
    export_plan_.reset();
    sum_plan_.reset();
    owned_.reset();
    list_dst_.reset();
    list_src_.reset();
  }
  void plan(std::vector<std::pair<std::string, double>>& parts) override {
    double t0 = MPI_Wtime();
    if (c_.list_is_destination()) {
      list_dst_ = std::make_unique<ListDst>(world_, c_.n, dst_dist_);
      if (c_.in_place()) owned_ = std::make_unique<OwnedView>(list_dst_->local().data(), world_, c_.n);
      parts.emplace_back("array", seconds_since(t0));
      t0 = MPI_Wtime();
      if (c_.in_place()) owned_plan_.emplace(redist::make_plan(*owned_, *list_dst_));
      else import_plan_.emplace(redist::make_plan(*block_, *list_dst_));
    } else {
      list_src_ = std::make_unique<ListSrc>(world_, c_.n, src_dist_);
      if (c_.in_place()) owned_ = std::make_unique<OwnedView>(list_src_->local().data(), world_, c_.n);
      parts.emplace_back("array", seconds_since(t0));
      t0 = MPI_Wtime();
      if (c_.in_place()) sum_plan_.emplace(redist::make_plan(*list_src_, *owned_));
      else export_plan_.emplace(redist::make_plan(*list_src_, *block_));
    }
    parts.emplace_back("make_plan", seconds_since(t0));
  }
  /// make_plan's copy is dropped (its memory was counted); `b = a` runs the plan cached in b, which
  /// shares the copy's element lists.
  void fill() override {
    import_plan_.reset();
    export_plan_.reset();
    owned_plan_.reset();
    sum_plan_.reset();
    runs_ = 0;
    if (c_.in_place() && c_.sums()) {
      fill_source(c_, list_src_->local().data(), list_src_->local_size(), [&](index_t l) { return list_src_->global_index(l); });
    } else if (c_.in_place()) {
      const auto local = list_dst_->local();
      fill_source(c_, local.data(), c_.block(), [&](index_t l) { return list_dst_->global_index(l); });
      std::fill(local.begin() + c_.block(), local.end(), cleared_value);
    } else if (c_.list_is_destination()) {
      fill_source(c_, block_->local().data(), block_->local_size(), [&](index_t l) { return block_->global_index(l); });
      std::fill(list_dst_->local().begin(), list_dst_->local().end(), cleared_value);
    } else {
      fill_source(c_, list_src_->local().data(), list_src_->local_size(), [&](index_t l) { return list_src_->global_index(l); });
      std::fill(block_->local().begin(), block_->local().end(), cleared_value);
    }
  }
  void execute() override {
    ++runs_;
    if (c_.in_place() && c_.sums()) *owned_ = *list_src_;
    else if (c_.in_place()) *list_dst_ = *owned_;
    else if (c_.list_is_destination()) *list_dst_ = *block_;
    else *block_ = *list_src_;
  }
  bool check() const override {
    if (c_.in_place() && c_.sums())
      return check_destination(c_, owned_->local().data(), owned_->local_size(), [&](index_t l) { return owned_->global_index(l); },
                               runs_);
    if (c_.list_is_destination())
      return check_destination(c_, list_dst_->local().data(), list_dst_->local_size(),
                               [&](index_t l) { return list_dst_->global_index(l); });
    return check_destination(c_, block_->local().data(), block_->local_size(),
                             [&](index_t l) { return block_->global_index(l); });
  }

 private:
  using ImportPlan = decltype(redist::make_plan(std::declval<const BlockArray&>(), std::declval<const ListDst&>()));
  using ExportPlan = decltype(redist::make_plan(std::declval<const ListSrc&>(), std::declval<const BlockArray&>()));
  using OwnedView = redist::DistView<double, redist::Block>;  // in place: over the list array's storage
  using OwnedPlan = decltype(redist::make_plan(std::declval<const OwnedView&>(), std::declval<const ListDst&>()));
  using SumPlan = decltype(redist::make_plan(std::declval<const ListSrc&>(), std::declval<const OwnedView&>()));
  mpi::communicator world_;
  const Case& c_;
  redist::Indirect<> dst_dist_;
  redist::Indirect<std::plus<>> src_dist_;
  std::unique_ptr<BlockArray> block_;
  std::unique_ptr<ListDst> list_dst_;
  std::unique_ptr<ListSrc> list_src_;
  std::optional<ImportPlan> import_plan_;
  std::optional<ExportPlan> export_plan_;
  std::unique_ptr<OwnedView> owned_;
  std::optional<OwnedPlan> owned_plan_;
  std::optional<SumPlan> sum_plan_;
  int runs_ = 0;  ///< executions since fill()
};

// --- hand-written MPI_Alltoallv ---------------------------------------------------------------

/// What an MPI programmer writes without a library (no redist code): a rendezvous in which the
/// rank that holds a list tells each block owner, with one MPI_Alltoall of counts and one
/// MPI_Alltoallv of global indices, which of its elements it wants (import) or will send
/// (export); the owner of g is the formula g / b. Both sides keep per-peer lists of local
/// indices, in the order of the requests. Execution: pack by index list, copy what stays on this
/// rank, one MPI_Alltoallv, unpack by index list (= for an import, += for the export, whose own
/// contributions are copied first and whose places without one are zeroed). In place
/// (halo_update), the block is the list array's first elements: only the ghosts move.
class HandwrittenMethod final : public Method {
 public:
  HandwrittenMethod(const mpi::communicator& world, const Case& c) : comm_{static_cast<MPI_Comm>(world)}, c_{c} {
    MPI_Comm_size(comm_, &p_);
    const index_t block = c_.cut.hi(c_.rank) - c_.cut.lo(c_.rank);
    if (!c_.in_place())
      (c_.list_is_destination() ? src_ : dst_).assign(static_cast<std::size_t>(block), 0.0);  // the block array, not timed
  }
  const char* name() const override { return "alltoallv_handwritten"; }
  void release() override {
    scount_.clear(), sdispl_.clear(), rcount_.clear(), rdispl_.clear();
    send_at_.clear(), recv_at_.clear(), local_src_.clear(), local_dst_.clear(), zero_at_.clear();
    std::vector<double>().swap(sbuf_);
    std::vector<double>().swap(rbuf_);
    std::vector<double>().swap(c_.list_is_destination() ? dst_ : src_);
    send_at_.shrink_to_fit(), recv_at_.shrink_to_fit(), local_src_.shrink_to_fit(), local_dst_.shrink_to_fit();
  }
  void plan(std::vector<std::pair<std::string, double>>& parts) override {
    double t0 = MPI_Wtime();
    // The list's array (as redist's plan makes the Indirect array and Tpetra's its Vector).
    (c_.list_is_destination() ? dst_ : src_).assign(c_.list.size(), 0.0);
    parts.emplace_back("array", seconds_since(t0));
    t0 = MPI_Wtime();
    const auto P = static_cast<std::size_t>(p_);
    const index_t lo = c_.cut.lo(c_.rank);
    // Group this rank's list by block owner: the requests (global indices) and, in the same
    // order, the list's local indices; the owner's own ones are a local copy.
    std::vector<int> qcount(P, 0);
    for (index_t g : c_.list)
      if (c_.cut.owner(g) != c_.rank) ++qcount[static_cast<std::size_t>(c_.cut.owner(g))];
    std::vector<int> qdispl(P, 0);
    for (std::size_t q = 1; q < P; ++q) qdispl[q] = qdispl[q - 1] + qcount[q - 1];
    std::vector<long long> requests(static_cast<std::size_t>(qdispl[P - 1] + qcount[P - 1]));
    std::vector<index_t> list_at(requests.size());
    std::vector<int> fill = qdispl;
    local_src_.reserve(c_.list.size() - requests.size());
    local_dst_.reserve(c_.list.size() - requests.size());
    for (std::size_t l = 0; l < c_.list.size(); ++l) {
      const index_t g = c_.list[l];
      const int o = c_.cut.owner(g);
      if (o == c_.rank) {
        if (c_.in_place()) continue;  // already in place: the list's first elements are the block
        // A list element on its own block owner: block place g - lo <-> list place l.
        local_src_.push_back(c_.list_is_destination() ? g - lo : static_cast<index_t>(l));
        local_dst_.push_back(c_.list_is_destination() ? static_cast<index_t>(l) : g - lo);
        continue;
      }
      const auto k = static_cast<std::size_t>(fill[static_cast<std::size_t>(o)]++);
      requests[k] = g;
      list_at[k] = static_cast<index_t>(l);
    }
    // Rendezvous: the owners learn which of their block's elements each list holder names.
    std::vector<int> ocount(P, 0), odispl(P, 0);
    MPI_Alltoall(qcount.data(), 1, MPI_INT, ocount.data(), 1, MPI_INT, comm_);
    for (std::size_t q = 1; q < P; ++q) odispl[q] = odispl[q - 1] + ocount[q - 1];
    std::vector<long long> named(static_cast<std::size_t>(odispl[P - 1] + ocount[P - 1]));
    MPI_Alltoallv(requests.data(), qcount.data(), qdispl.data(), MPI_LONG_LONG, named.data(), ocount.data(),
                  odispl.data(), MPI_LONG_LONG, comm_);
    std::vector<index_t> block_at(named.size());
    for (std::size_t k = 0; k < named.size(); ++k) block_at[k] = named[k] - lo;
    // An import sends from the block (the owners) to the lists; the export the other way.
    if (c_.list_is_destination()) {
      send_at_ = std::move(block_at), scount_ = ocount, sdispl_ = odispl;
      recv_at_ = std::move(list_at), rcount_ = qcount, rdispl_ = qdispl;
    } else {
      send_at_ = std::move(list_at), scount_ = qcount, sdispl_ = qdispl;
      recv_at_ = std::move(block_at), rcount_ = ocount, rdispl_ = odispl;
      // The block places no local contribution covers start from zero.
      std::vector<char> covered(dst_.size(), 0);
      for (index_t d : local_dst_) covered[static_cast<std::size_t>(d)] = 1;
      for (std::size_t d = 0; d < covered.size(); ++d)
        if (!covered[d]) zero_at_.push_back(static_cast<index_t>(d));
    }
    sbuf_.resize(send_at_.size());
    rbuf_.resize(recv_at_.size());
    parts.emplace_back("rendezvous", seconds_since(t0));
  }
  void fill() override {
    runs_ = 0;
    if (c_.in_place() && c_.sums()) {
      fill_source(c_, src_.data(), static_cast<index_t>(src_.size()), [&](index_t l) { return c_.list[static_cast<std::size_t>(l)]; });
      return;
    }
    if (c_.in_place()) {
      fill_source(c_, dst_.data(), c_.block(), [&](index_t l) { return c_.cut.lo(c_.rank) + l; });
      std::fill(dst_.begin() + c_.block(), dst_.end(), cleared_value);
      return;
    }
    if (c_.list_is_destination()) fill_source(c_, src_.data(), static_cast<index_t>(src_.size()), [&](index_t l) { return c_.cut.lo(c_.rank) + l; });
    else fill_source(c_, src_.data(), static_cast<index_t>(src_.size()), [&](index_t l) { return c_.list[static_cast<std::size_t>(l)]; });
    std::fill(dst_.begin(), dst_.end(), cleared_value);
  }
  void execute() override {
    ++runs_;
    // In place, the list's array is both (its first elements the block).
    double* list = c_.list_is_destination() ? dst_.data() : src_.data();
    const double* src = c_.in_place() ? list : src_.data();
    double* dst = c_.in_place() ? list : dst_.data();
    // Pack
    for (std::size_t k = 0; k < send_at_.size(); ++k) sbuf_[k] = src[send_at_[k]];
    // Copy what stays on this rank
    for (std::size_t k = 0; k < local_src_.size(); ++k) dst[local_dst_[k]] = src[local_src_[k]];
    for (index_t d : zero_at_) dst[d] = 0.0;
    // Exchange
    MPI_Alltoallv(sbuf_.data(), scount_.data(), sdispl_.data(), MPI_DOUBLE, rbuf_.data(), rcount_.data(), rdispl_.data(),
                  MPI_DOUBLE, comm_);
    // Unpack
    if (c_.list_is_destination())
      for (std::size_t k = 0; k < recv_at_.size(); ++k) dst[recv_at_[k]] = rbuf_[k];
    else
      for (std::size_t k = 0; k < recv_at_.size(); ++k) dst[recv_at_[k]] += rbuf_[k];
  }
  bool check() const override {
    if (c_.in_place() && c_.sums())
      return check_destination(c_, src_.data(), c_.block(), [&](index_t l) { return c_.cut.lo(c_.rank) + l; }, runs_);
    if (c_.list_is_destination())
      return check_destination(c_, dst_.data(), static_cast<index_t>(dst_.size()), [&](index_t l) { return c_.list[static_cast<std::size_t>(l)]; });
    return check_destination(c_, dst_.data(), static_cast<index_t>(dst_.size()), [&](index_t l) { return c_.cut.lo(c_.rank) + l; });
  }

 private:
  MPI_Comm comm_;
  const Case& c_;
  int p_ = 1;
  std::vector<double> src_, dst_, sbuf_, rbuf_;
  std::vector<int> scount_, sdispl_, rcount_, rdispl_;
  std::vector<index_t> send_at_, recv_at_, local_src_, local_dst_, zero_at_;
  int runs_ = 0;  ///< executions since fill()
};

// --- Tpetra -----------------------------------------------------------------------------------

#ifdef REDIST_BENCH_HAVE_TPETRA
/// Trilinos' Tpetra with its default node: the one-to-one block Map (contiguous constructor, the
/// same blocks as Block) and the list's Map (from its global indices, Tpetra's overlapping Map),
/// an Import (block -> list) or Export (list -> block); execution doImport(INSERT) or
/// doExport(ADD). The plan is the two Maps, the Vector on the list's Map (as redist's plan makes
/// the Indirect array, its storage with its directory) and the Import/Export; the Vector on the
/// block Map is made after it, not timed (as redist's Block array). In place (halo_update), the
/// source is the offset view of the list Map's Vector on the block Map (its first elements, as
/// Tpetra's FEMultiVector holds its owned part): doImport's copy of the same elements finds them
/// in place (Kokkos::deep_copy of a view onto itself copies nothing).
class TpetraMethod final : public Method {
 public:
  using map_type = Tpetra::Map<>;
  using LO = map_type::local_ordinal_type;
  using GO = map_type::global_ordinal_type;
  using node_type = map_type::node_type;
  using vector_type = Tpetra::Vector<double, LO, GO, node_type>;
  using import_type = Tpetra::Import<LO, GO, node_type>;
  using export_type = Tpetra::Export<LO, GO, node_type>;

  explicit TpetraMethod(const Case& c) : c_{c}, gids_(c.list.begin(), c.list.end()) {}
  const char* name() const override { return "tpetra"; }
  void release() override {
    src_ = dst_ = Teuchos::null;
    importer_ = Teuchos::null;
    exporter_ = Teuchos::null;
    block_map_ = list_map_ = Teuchos::null;
  }
  void plan(std::vector<std::pair<std::string, double>>& parts) override {
    double t0 = MPI_Wtime();
    const auto comm = Tpetra::getDefaultComm();
    const auto block = static_cast<std::size_t>(c_.cut.hi(c_.rank) - c_.cut.lo(c_.rank));
    block_map_ = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(c_.n), block, GO{0}, comm));
    list_map_ = Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                          Teuchos::ArrayView<const GO>(gids_.data(), static_cast<LO>(gids_.size())), GO{0},
                                          comm));
    parts.emplace_back("maps", seconds_since(t0));
    t0 = MPI_Wtime();
    (c_.list_is_destination() ? dst_ : src_) = Teuchos::rcp(new vector_type(list_map_));
    parts.emplace_back("vector", seconds_since(t0));
    t0 = MPI_Wtime();
    if (c_.list_is_destination()) {
      importer_ = Teuchos::rcp(new import_type(block_map_, list_map_));
      parts.emplace_back("import", seconds_since(t0));
    } else {
      exporter_ = Teuchos::rcp(new export_type(list_map_, block_map_));
      parts.emplace_back("export", seconds_since(t0));
    }
  }
  void fill() override {
    runs_ = 0;
    // The block Map's Vector, once per plan (the list Map's was made with the plan); in place the
    // offset view of the list Map's Vector on the block Map.
    if (c_.in_place() && c_.sums()) {
      if (dst_.is_null()) dst_ = src_->offsetViewNonConst(block_map_, 0);
      auto s = src_->getLocalViewHost(Tpetra::Access::OverwriteAll);
      fill_source(c_, s.data(), static_cast<index_t>(gids_.size()), [&](index_t l) { return static_cast<index_t>(gids_[static_cast<std::size_t>(l)]); });
      return;
    }
    if (c_.in_place() && src_.is_null()) src_ = dst_->offsetViewNonConst(block_map_, 0);
    if (c_.list_is_destination() && src_.is_null()) src_ = Teuchos::rcp(new vector_type(block_map_));
    if (!c_.list_is_destination() && dst_.is_null()) dst_ = Teuchos::rcp(new vector_type(block_map_));
    {
      auto s = src_->getLocalViewHost(Tpetra::Access::OverwriteAll);
      const auto& map = *src_->getMap();
      fill_source(c_, s.data(), static_cast<index_t>(map.getNodeNumElements()),
                  [&](index_t l) { return static_cast<index_t>(map.getGlobalElement(static_cast<LO>(l))); });
    }
    if (!c_.in_place()) {
      dst_->putScalar(cleared_value);
      return;
    }
    auto d = dst_->getLocalViewHost(Tpetra::Access::ReadWrite);
    for (std::size_t l = static_cast<std::size_t>(c_.block()); l < d.extent(0); ++l) d(l, 0) = cleared_value;
  }
  void execute() override {
    ++runs_;
    if (c_.list_is_destination()) dst_->doImport(*src_, *importer_, Tpetra::INSERT);
    else dst_->doExport(*src_, *exporter_, Tpetra::ADD);
  }
  bool check() const override {
    auto d = dst_->getLocalViewHost(Tpetra::Access::ReadOnly);
    const auto& map = *dst_->getMap();
    return check_destination(c_, d.data(), static_cast<index_t>(map.getNodeNumElements()),
                             [&](index_t l) { return static_cast<index_t>(map.getGlobalElement(static_cast<LO>(l))); }, runs_);
  }

 private:
  const Case& c_;
  std::vector<GO> gids_;  // the list in Tpetra's global ordinal type (converted before any timing)
  Teuchos::RCP<const map_type> block_map_, list_map_;
  Teuchos::RCP<const import_type> importer_;
  Teuchos::RCP<const export_type> exporter_;
  Teuchos::RCP<vector_type> src_, dst_;
  int runs_ = 0;  ///< executions since fill()
};
#endif

// ---------------------------------------------------------------------------------------------
// Measuring a case.

/// One CSV row: a (case, method).
struct Row {
  std::string case_name, method, plan_detail;
  index_t n = 0;
  int ranks = 0, reps = 0;
  double plan_ms = 0, first_ms = 0, median_ms = 0, min_ms = 0, max_ms = 0;
  // Max over ranks: the RSS before the plan; the peak during the plan (from the RSS before it);
  // the peak during the first execution (from the RSS before it, every method's plan made).
  double rss_before_mib = 0, rss_plan_mib = 0, rss_first_mib = 0;
  std::vector<double> rss_first_per_rank;
  bool ok = true;
};

struct Options {
  index_t n = index_t{1} << 24;
  int reps = 10;
  int warmup = 0;  ///< untimed rounds after the first execution (what a library settles on its first calls)
  int plan_reps = 3;
  std::uint64_t seed = 2024;
};

/// The methods of `names` for case c, in that order (those not built in are skipped).
std::vector<std::unique_ptr<Method>> make_methods(const mpi::communicator& world, const Case& c,
                                                  const std::vector<std::string>& names) {
  std::vector<std::unique_ptr<Method>> ms;
  for (const std::string& m : names) {
    if (m == "redist") ms.push_back(std::make_unique<RedistMethod>(world, c));
    else if (m == "alltoallv_handwritten") ms.push_back(std::make_unique<HandwrittenMethod>(world, c));
#ifdef REDIST_BENCH_HAVE_TPETRA
    else if (m == "tpetra") ms.push_back(std::make_unique<TpetraMethod>(c));
#endif
  }
  return ms;
}

/// Every method's plan (plan_reps interleaved rounds, the median of the slowest rank's time; the
/// memory of the first round), warm-up and check, then reps interleaved rounds of execution.
std::vector<Row> run_case(const mpi::communicator& world, CaseKind kind, const Options& o,
                          const std::vector<std::string>& names, bool& all_ok) {
  const MPI_Comm comm = static_cast<MPI_Comm>(world);
  const int p = world.size(), r = world.rank();
  Case c{kind, o.n, BlockCut(o.n, p), r, {}};
  c.list = kind == CaseKind::permutation ? permutation_list(c.cut, r, o.seed) : halo_list(c.cut, r);
  std::vector<std::unique_ptr<Method>> ms = make_methods(world, c, names);
  std::vector<Row> rows(ms.size());
  std::vector<std::vector<double>> plan_s(ms.size()), exec_s(ms.size());
  std::vector<std::vector<std::pair<std::string, std::vector<double>>>> part_s(ms.size());
  for (std::size_t i = 0; i < ms.size(); ++i) {
    rows[i].case_name = case_name(kind);
    rows[i].method = ms[i]->name();
    rows[i].n = o.n;
    rows[i].ranks = p;
    rows[i].reps = o.reps;
  }
  // Plan
  for (int k = 0; k < o.plan_reps; ++k)
    for (std::size_t i = 0; i < ms.size(); ++i) {
      ms[i]->release();
      if (k == 0) {
        reset_peak_rss();
        rows[i].rss_before_mib = max_over(comm, current_rss_mib());
      }
      std::vector<std::pair<std::string, double>> parts;
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      ms[i]->plan(parts);
      plan_s[i].push_back(max_over(comm, MPI_Wtime() - t0));
      for (std::size_t j = 0; j < parts.size(); ++j) {
        if (k == 0) part_s[i].emplace_back(parts[j].first, std::vector<double>{});
        part_s[i][j].second.push_back(max_over(comm, parts[j].second));
      }
      if (k == 0) rows[i].rss_plan_mib = max_over(comm, peak_rss_mib());
    }
  // Warm-up and check: the first execution (page faults, redist's plan into b's cache).
  for (std::size_t i = 0; i < ms.size(); ++i) {
    ms[i]->fill();
    reset_peak_rss();
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    ms[i]->execute();
    rows[i].first_ms = 1e3 * max_over(comm, MPI_Wtime() - t0);
    const double rss = peak_rss_mib();
    rows[i].rss_first_mib = max_over(comm, rss);
    rows[i].rss_first_per_rank.resize(static_cast<std::size_t>(p));
    MPI_Gather(&rss, 1, MPI_DOUBLE, rows[i].rss_first_per_rank.data(), 1, MPI_DOUBLE, 0, comm);
    int ok = ms[i]->check() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
    rows[i].ok = ok != 0;
  }
  // Untimed rounds, then the timed ones: each round runs every method once, in turn.
  for (int k = 0; k < o.warmup; ++k)
    for (std::size_t i = 0; i < ms.size(); ++i) {
      MPI_Barrier(comm);
      ms[i]->execute();
    }
  for (int k = 0; k < o.reps; ++k)
    for (std::size_t i = 0; i < ms.size(); ++i) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      ms[i]->execute();
      exec_s[i].push_back(max_over(comm, MPI_Wtime() - t0));
    }
  for (std::size_t i = 0; i < ms.size(); ++i) {
    int ok = ms[i]->check() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
    rows[i].ok = rows[i].ok && ok != 0;
    all_ok = all_ok && rows[i].ok;
    rows[i].plan_ms = 1e3 * median(plan_s[i]);
    rows[i].median_ms = 1e3 * median(exec_s[i]);
    rows[i].min_ms = 1e3 * *std::min_element(exec_s[i].begin(), exec_s[i].end());
    rows[i].max_ms = 1e3 * *std::max_element(exec_s[i].begin(), exec_s[i].end());
    for (const auto& [part, s] : part_s[i]) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s%s=%.3f", rows[i].plan_detail.empty() ? "" : ";", part.c_str(), 1e3 * median(s));
      rows[i].plan_detail += buf;
    }
  }
  for (auto& m : ms) m->release();
  return rows;
}

const char* csv_header =
    "run,case,method,ranks,n,reps,plan_ms,plan_detail,first_ms,median_ms,min_ms,max_ms,rss_before_mib,rss_plan_mib,"
    "rss_first_mib,check\n";

void print_row(std::FILE* f, int run, const Row& r) {
  std::fprintf(f, "%d,%s,%s,%d,%lld,%d,%.3f,%s,%.4f,%.4f,%.4f,%.4f,%.1f,%.1f,%.1f,%s\n", run, r.case_name.c_str(),
               r.method.c_str(), r.ranks, static_cast<long long>(r.n), r.reps, r.plan_ms, r.plan_detail.c_str(), r.first_ms,
               r.median_ms, r.min_ms, r.max_ms, r.rss_before_mib, r.rss_plan_mib, r.rss_first_mib, r.ok ? "ok" : "FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
#ifdef REDIST_BENCH_HAVE_TPETRA
  Tpetra::ScopeGuard tpetra_scope(&argc, &argv);  // MPI is initialized already: Tpetra leaves it to us
#endif
  Options o;
  std::string csv;
  int run = 1;
  bool append = false;
  std::vector<std::string> case_names, method_names;
  redist::bench::cli::Parser cli("indirect-bench");
  cli.integer("--n N", "elements (doubles)", o.n, index_t{1})
      .integer("--reps R", "interleaved rounds of execution", o.reps, 1)
      .integer("--warmup W", "untimed interleaved rounds after the first execution (default 0; redist's folds time their "
                             "transports on their runs 1-8)", o.warmup, 0)
      .integer("--plan-reps R", "interleaved rounds of planning (each makes the plan anew; the last is run)", o.plan_reps, 1)
      .integer("--seed S", "the permutation's seed, the same on every rank", o.seed)
      .words("--case", "cases to run: permutation, halo_import, halo_export_add, halo_update, halo_sum_update (default all)",
             case_names)
      .words("--methods", "methods to run: redist, alltoallv_handwritten, tpetra (default all built in)", method_names)
      .text("--csv FILE", "write the rows to FILE", csv)
      .flag("--append", "append the rows to FILE (its header only when it is new)", append)
      .integer("--run R", "the run's label in the CSV's first column", run);
  if (const std::optional<int> status = cli.parse(argc, argv, world.rank() == 0)) return *status;
  const std::vector<CaseKind> all_cases{CaseKind::permutation, CaseKind::halo_import, CaseKind::halo_export_add,
                                       CaseKind::halo_update, CaseKind::halo_sum_update};
  std::vector<std::string> built{"redist", "alltoallv_handwritten"};
#ifdef REDIST_BENCH_HAVE_TPETRA
  built.push_back("tpetra");
#endif
  std::vector<CaseKind> cases;
  for (const std::string& name : case_names) {
    const auto it = std::find_if(all_cases.begin(), all_cases.end(), [&](CaseKind k) { return name == case_name(k); });
    if (it == all_cases.end())
      return cli.fail("unknown case '" + name + "'", world.rank() == 0);
    cases.push_back(*it);
  }
  if (cases.empty()) cases = all_cases;
  for (const std::string& name : method_names) {
    if (name == "tpetra" && std::find(built.begin(), built.end(), name) == built.end())
      return cli.fail("the tpetra method is not built in (meson -Dtpetra=enabled, or -DREDIST_BENCH_HAVE_TPETRA)", world.rank() == 0);
    if (std::find(built.begin(), built.end(), name) == built.end())
      return cli.fail("unknown method '" + name + "'", world.rank() == 0);
  }
  if (method_names.empty()) method_names = built;

  const bool hwm_reset = reset_peak_rss();
  std::vector<Row> rows;
  bool all_ok = true;
  for (CaseKind k : cases) {
    std::vector<Row> r = run_case(world, k, o, method_names, all_ok);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  process_peak_mib = std::max(process_peak_mib, peak_rss_mib());
  std::vector<double> peaks(static_cast<std::size_t>(world.size()));
  MPI_Gather(&process_peak_mib, 1, MPI_DOUBLE, peaks.data(), 1, MPI_DOUBLE, 0, static_cast<MPI_Comm>(world));

  if (world.rank() == 0) {
    std::printf("indirect-bench: n = %lld doubles, %d ranks, %d rounds after %d untimed (%d of planning); ms of the "
                "slowest rank; RSS in MiB, max over ranks (%s)\n",
                static_cast<long long>(o.n), world.size(), o.reps, o.warmup, o.plan_reps,
                hwm_reset ? "the peak is reset to the current RSS before each method's plan"
                          : "the kernel refused to reset the peak: every reading is the process's peak so far");
    std::printf("%-16s %-22s %10s %10s %10s %10s %10s %9s %9s %9s  %s\n", "case", "method", "plan_ms", "first_ms",
                "median_ms", "min_ms", "max_ms", "rss_base", "rss_plan", "rss_first", "plan parts (ms)");
    for (const Row& r : rows) {
      std::printf("%-16s %-22s %10.2f %10.4f %10.4f %10.4f %10.4f %9.1f %9.1f %9.1f  %s%s\n", r.case_name.c_str(),
                  r.method.c_str(), r.plan_ms, r.first_ms, r.median_ms, r.min_ms, r.max_ms, r.rss_before_mib, r.rss_plan_mib,
                  r.rss_first_mib, r.plan_detail.c_str(), r.ok ? "" : "  CHECK FAILED");
    }
    std::printf("peak RSS per rank after the first execution (MiB):\n");
    for (const Row& r : rows) {
      std::printf("  %-16s %-22s", r.case_name.c_str(), r.method.c_str());
      for (double x : r.rss_first_per_rank) std::printf(" %8.1f", x);
      std::printf("\n");
    }
    std::printf("process peak RSS per rank (MiB):");
    for (double x : peaks) std::printf(" %.1f", x);
    std::printf("\n");
    // Ratios: redist against each baseline, per case (plan and median execution).
    for (const char* base : {"tpetra", "alltoallv_handwritten"})
      for (CaseKind k : cases) {
        const auto find = [&](const char* m) {
          return std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.case_name == case_name(k) && r.method == m; });
        };
        const auto a = find("redist"), b = find(base);
        if (a == rows.end() || b == rows.end()) continue;
        std::printf("redist/%s %-16s plan %.3f  exec %.3f\n", base, case_name(k), a->plan_ms / b->plan_ms,
                    a->median_ms / b->median_ms);
      }
    if (!csv.empty()) {
      std::ifstream existing(csv);
      const bool fresh = !append || !existing || existing.peek() == std::ifstream::traits_type::eof();
      std::FILE* f = std::fopen(csv.c_str(), append ? "a" : "w");
      if (f == nullptr) {
        std::fprintf(stderr, "indirect-bench: cannot write %s\n", csv.c_str());
        all_ok = false;
      } else {
        if (fresh) std::fputs(csv_header, f);
        for (const Row& r : rows) print_row(f, run, r);
        std::fclose(f);
      }
    }
  }
  if (!all_ok && world.rank() == 0) std::fprintf(stderr, "indirect-bench: a check failed\n");
  return all_ok ? 0 : 1;
}
