/// @file Defines Redistribution (a plan bound to two layouts, with its scratch) and the plan cache of DistArray.
#pragma once

#include <memory>
#include <span>
#include <utility>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/plan.hpp>
#include <redist/runtime/exchange.hpp>

namespace redist {

/// A plan for moving data from the layout `From` to the layout `To` on one rank, with the scratch
/// buffer it reuses. Made by redist::make_plan(a, b); execute(a, b) runs it (collective).
template <class From, class To>
class Redistribution {
 public:
  Redistribution(From from, To to, int rank) : from_{std::move(from)}, to_{std::move(to)} {
    plan_ = build_plan(from_, to_, rank);
  }
  const Plan& plan() const noexcept { return plan_; }
  const From& from() const noexcept { return from_; }
  const To& to() const noexcept { return to_; }
  const runtime::Scratch& scratch() const noexcept { return scratch_; }

  /// src -> dst with this plan. Requires src and dst to have the layouts the plan was made for.
  template <class A, class B>
  void execute(const A& src, B& dst) {
    REDIST_EXPECTS(src.mapping() == from_ && dst.mapping() == to_,
                   "redist::Redistribution::execute(src, dst) requires src and dst to have the layouts the plan was made for");
    run(src.comm(), src.local(), dst.local());
  }

  template <class T>
  void run(const boost::mpi::communicator& comm, std::span<const T> src, std::span<T> dst) {
    runtime::execute(plan_, comm, src, dst, scratch_);
  }

  bool matches(const From& from, const To& to) const { return from == from_ && to == to_; }

 private:
  From from_;
  To to_;
  Plan plan_;
  runtime::Scratch scratch_;
};

namespace detail {
/// One cached Redistribution of a destination array, type-erased over the source layout.
/// Copying an array does not copy its cache.
class PlanCache {
 public:
  PlanCache() = default;
  PlanCache(const PlanCache&) noexcept {}
  PlanCache& operator=(const PlanCache&) noexcept { return *this; }
  PlanCache(PlanCache&&) noexcept = default;
  PlanCache& operator=(PlanCache&&) noexcept = default;

  /// The cached plan for (from, to) on comm, or a new one replacing it.
  template <class From, class To>
  Redistribution<From, To>& get(const From& from, const To& to, const boost::mpi::communicator& comm) {
    auto* e = dynamic_cast<entry<From, To>*>(entry_.get());
    if (e == nullptr || e->comm != static_cast<MPI_Comm>(comm) || !e->r.matches(from, to)) {
      entry_.reset();  // release the old plan and scratch first
      entry_ = std::make_unique<entry<From, To>>(static_cast<MPI_Comm>(comm), from, to, comm.rank());
      e = static_cast<entry<From, To>*>(entry_.get());
    }
    return e->r;
  }

 private:
  struct entry_base {
    virtual ~entry_base() = default;
  };
  template <class From, class To>
  struct entry : entry_base {
    entry(MPI_Comm c, const From& from, const To& to, int rank) : comm{c}, r{from, to, rank} {}
    MPI_Comm comm;
    Redistribution<From, To> r;
  };
  std::unique_ptr<entry_base> entry_;
};
}  // namespace detail

}  // namespace redist
