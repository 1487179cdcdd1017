/// @file Defines the methods redist-bench measures on 1-D arrays (redist and its schedules, pdgemr2d, alltoallv, alltoallv_onepass, alltoallw, memcpy, naive) and methods_1d, their table for one pair of layouts.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <redist/redist.hpp>

#include "alltoall.hpp"
#include "baselines.hpp"
#include "gemr2d.hpp"
#include "harness.hpp"
#include "onepass.hpp"
#include "schedules.hpp"

namespace redist::bench {

/// What the methods of a 1-D case share: the source array (filled with f), the destination
/// layout, and the BLACS grids for pdgemr2d. Each method makes its own destination array.
template <class T, class DS, class DD>
struct Layouts1d {
  const DistArray<T, DS>* src;
  DD dst;
  const BlacsGrids* grids;
  DistArray<T, DD> make_dst() const { return DistArray<T, DD>(src->comm(), src->size(), dst); }
};

/// The traffic of a plan: what its rank sends to other ranks, elements of `bytes_per_element`.
template <class R>
Cost traffic(const BasicPlan<R>& plan, std::int64_t bytes_per_element) {
  Cost c;
  c.bytes_sent = plan.elements_sent() * bytes_per_element;
  c.messages = static_cast<std::int64_t>(plan.messages_sent());
  return c;
}

/// The cost of a Redistribution that has run: its plan's traffic and steps (summed over its
/// stages when it has several, as schedule::multiphase), its scratch capacity, or the largest
/// scratch a round needed when it exposes only that, plus any intermediate array it keeps.
template <class R>
Cost redistribution_cost(const R& r, std::int64_t bytes_per_element) {
  Cost c;
  const Cost t = traffic(r.plan(), bytes_per_element);
  c.bytes_sent += t.bytes_sent;
  c.messages += t.messages;
  c.steps += static_cast<std::int64_t>(r.plan().steps());
  if constexpr (requires { r.scratch().capacity(); })
    c.scratch_bytes += static_cast<std::int64_t>(r.scratch().capacity());
  else if constexpr (requires { r.scratch_high_water(); })
    c.scratch_bytes += static_cast<std::int64_t>(r.scratch_high_water());
  if constexpr (requires { r.intermediate().capacity(); })
    c.scratch_bytes += static_cast<std::int64_t>(r.intermediate().capacity());
  return c;
}

/// The general plan of a -> b (LDD intersection, all messages in one step): the run lists the
/// baselines move and count, whatever plan schedule::automatic would choose.
template <class A, class B>
auto general_plan(const A& a, const B& b) {
  return redist::make_plan(a, b, schedule::all_at_once).plan();
}

/// A method that writes a destination array b of its own from the shared source a.
template <class A, class B>
class IntoArray : public Method {
 public:
  void clear() override { std::ranges::fill(b_.local(), cleared_value); }
  bool verify() const override { return holds_values(b_); }

 protected:
  IntoArray(const A& a, B b) : a_{a}, b_{std::move(b)} {}
  const A& a_;
  B b_;
};

/// How the redist methods call the library.
enum class Call {
  assign,        ///< b = a (schedule::automatic, plan cached in b)
  redistribute,  ///< redist::redistribute(a, b, policy) (plan cached in b)
  messages,      ///< redist::redistribute(a, b, policy, options with shared_memory off): messages between every pair
  aggregated,    ///< redist::redistribute(a, b, policy, options with node_aggregation always): one message per node pair
  unaggregated,  ///< redist::redistribute(a, b, policy, options with node_aggregation never)
};

/// The default options with shared memory off: the message path, for comparison with the shared one.
inline options messages_only() {
  options o = default_options();
  o.shared_memory = false;
  return o;
}

/// The default options with node_aggregation set to `how`.
inline options aggregation(redist::NodeAggregation how) {
  options o = default_options();
  o.node_aggregation = how;
  return o;
}

/// The options of a call: default_options() but for the message path's and aggregation's.
inline options options_of(Call call) {
  if (call == Call::messages) return messages_only();
  if (call == Call::aggregated) return aggregation(redist::NodeAggregation::always);
  if (call == Call::unaggregated) return aggregation(redist::NodeAggregation::never);
  return default_options();
}

/// True when the ranks of comm span several nodes (options' node_size) and one holds several:
/// where node aggregation applies.
inline bool aggregation_applies(const boost::mpi::communicator& comm) {
  const options& o = default_options();
  if (!o.shared_memory || comm.size() < 2) return false;
  const auto node = redist::runtime::node_of(static_cast<MPI_Comm>(comm), o.node_size);
  return node->crowded && !node->whole();
}

/// redist: b = a, or redistribute(a, b, policy). Setup is make_plan(a, b, policy) (its time is the
/// plan's); the calls, warm-up and timed, use the plan the first call cached in b, and cost()
/// reports that one: under schedule::automatic the plan the decision kept on its second run, not
/// make_plan's, which has not run (and whose first run would be the model's choice).
template <class A, class B, class Policy>
class RedistMethod final : public IntoArray<A, B> {
 public:
  RedistMethod(const A& a, B b, Policy policy, Call call) : IntoArray<A, B>{a, std::move(b)}, policy_{policy}, call_{call} {}
  bool has_setup() const override { return true; }
  void setup() override {
    plan_.emplace(redist::make_plan(this->a_, this->b_, policy_, options_of(call_)));
  }
  void run() override {
    if (call_ == Call::assign)
      this->b_ = this->a_;
    else if (call_ != Call::redistribute)
      redist::redistribute(this->a_, this->b_, policy_, options_of(call_));
    else
      redist::redistribute(this->a_, this->b_, policy_);
  }
  Cost cost() override {
    // b's cached Redistribution, found as each call finds it (the same layouts, policy and
    // options): after the warm-up and the timed calls, nothing is planned or run here.
    using L = redist::detail::plan_layouts<A, B>;
    const auto& r = redist::detail::array_access::cache(this->b_).get(L::of(this->a_), L::of(this->b_), policy_,
                                                                      options_of(call_), this->a_.comm());
    return redistribution_cost(r, sizeof(typename A::value_type));
  }
  std::string explain() override {
    return redist::explain(this->a_, this->b_, policy_, options_of(call_)).str();
  }

 private:
  Policy policy_;
  Call call_;
  std::optional<decltype(redist::make_plan(std::declval<const A&>(), std::declval<const B&>(), std::declval<Policy>()))> plan_;
};

/// MPI_Alltoallv on the general plan's runs, packed and unpacked once per call (see AlltoallvExchange).
template <class A, class B>
class AlltoallvMethod final : public IntoArray<A, B> {
 public:
  AlltoallvMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override { exchange_.emplace(general_plan(this->a_, this->b_)); }
  void run() override { exchange_->run(static_cast<MPI_Comm>(this->a_.comm()), this->a_.local(), this->b_.local()); }
  Cost cost() override {
    Cost c = traffic(exchange_->plan(), sizeof(typename A::value_type));
    c.steps = 1;
    c.scratch_bytes = static_cast<std::int64_t>(exchange_->scratch_bytes());
    return c;
  }

 private:
  std::optional<AlltoallvExchange<typename A::value_type, decltype(general_plan(std::declval<const A&>(), std::declval<const B&>()))>> exchange_;
};

/// MPI_Alltoallv on runs the user computes from the arrays' index queries, no redist plan (see OnePassAlltoallv).
template <class A, class B>
class OnePassMethod final : public IntoArray<A, B> {
 public:
  OnePassMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override { exchange_.emplace(this->a_, this->b_); }
  void run() override { exchange_->run(static_cast<MPI_Comm>(this->a_.comm()), this->a_.local(), this->b_.local()); }
  Cost cost() override {
    Cost c;
    c.bytes_sent = exchange_->bytes_sent();
    c.messages = exchange_->messages();
    c.steps = 1;
    c.scratch_bytes = static_cast<std::int64_t>(exchange_->scratch_bytes());
    return c;
  }

 private:
  std::optional<OnePassAlltoallv<typename A::value_type>> exchange_;
};

/// MPI_Alltoallw with derived datatypes, no packing by us (see AlltoallwExchange).
template <class A, class B>
class AlltoallwMethod final : public IntoArray<A, B> {
 public:
  AlltoallwMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  bool has_setup() const override { return true; }
  void setup() override {
    plan_ = general_plan(this->a_, this->b_);
    exchange_.emplace(plan_);
  }
  void run() override { exchange_->run(static_cast<MPI_Comm>(this->a_.comm()), this->a_.local(), this->b_.local()); }
  Cost cost() override {
    Cost c = traffic(plan_, sizeof(typename A::value_type));
    c.steps = 1;
    return c;
  }

 private:
  decltype(general_plan(std::declval<const A&>(), std::declval<const B&>())) plan_;
  std::optional<AlltoallwExchange<typename A::value_type>> exchange_;
};

/// ScaLAPACK's pdgemr2d on the arrays' own local storage (see Gemr2d). It packs every message,
/// the local part included, into a send buffer the size of the source's local part and receives
/// into one the size of the destination's; its caterpillar schedule has P steps.
template <class A, class B>
class Gemr2dMethod final : public IntoArray<A, B> {
 public:
  Gemr2dMethod(const A& a, B b, const BlacsGrids& grids, pdgemr2d_fn* f = &pdgemr2d_)
      : IntoArray<A, B>{a, std::move(b)}, grids_{&grids}, f_{f} {}
  void setup() override { gemr2d_.emplace(*grids_, this->a_.mapping().linear(), this->b_.mapping().linear(), f_); }
  void run() override { gemr2d_->run(this->a_.local().data(), this->b_.local().data()); }
  Cost cost() override {
    Cost c = traffic(general_plan(this->a_, this->b_), sizeof(double));
    c.steps = this->a_.comm().size();
    c.scratch_bytes = (this->a_.local_size() + this->b_.local_size()) * static_cast<std::int64_t>(sizeof(double));
    return c;
  }

 private:
  const BlacsGrids* grids_;
  pdgemr2d_fn* f_;
  std::optional<Gemr2d> gemr2d_;
};

/// The floor: memcpy of the local source to a buffer of the same size. No communication.
template <class A>
class MemcpyMethod final : public Method {
 public:
  explicit MemcpyMethod(const A& a) : a_{a}, copy_(static_cast<std::size_t>(a.local_size())) {}
  void run() override {
    if (!copy_.empty()) std::memcpy(copy_.data(), a_.local().data(), copy_.size() * sizeof(value_type));
  }
  void clear() override { std::ranges::fill(copy_, cleared_value); }
  bool verify() const override {
    for (index_t l = 0; l < a_.local_size(); ++l)
      if (copy_[static_cast<std::size_t>(l)] != value_of(a_.global_index(l))) return false;
    return true;
  }
  Cost cost() override { return {}; }

 private:
  using value_type = typename A::value_type;
  const A& a_;
  std::vector<value_type> copy_;
};

/// The naive element-by-element method of baselines.hpp: (local index, value) pairs, one
/// MPI_Alltoallv; its buffers hold a pair for every local element on both sides. 1-D or N-D.
template <class A, class B>
class NaiveMethod final : public IntoArray<A, B> {
 public:
  NaiveMethod(const A& a, B b) : IntoArray<A, B>{a, std::move(b)} {}
  void run() override { naive_redistribute(this->a_, this->b_); }
  Cost cost() override {
    using Item = NaiveItem<typename A::value_type>;
    Cost c = traffic(general_plan(this->a_, this->b_), sizeof(Item));
    c.steps = 1;
    c.scratch_bytes = static_cast<std::int64_t>(this->a_.local().size() + this->b_.local().size()) *
                      static_cast<std::int64_t>(sizeof(Item));
    return c;
  }
};

/// True when redist has a plan for the layouts From -> To under Policy.
template <class From, class To, class Policy>
concept plannable = redist::Serves<Policy, From, To>;

/// Appends `redist` (b = a) and `redist:SCHEDULE` for every policy of schedules.hpp that serves
/// DS -> DD and has a plan for it. L (may be null when only names are listed) has `src`, the
/// source array, and `make_dst()`, which makes a destination array B.
template <class A, class B, class DS, class DD, class L>
void add_redist_methods(std::vector<MethodEntry>& e, const L* layouts) {
  e.push_back({"redist", [layouts] {
                 return std::make_unique<RedistMethod<A, B, schedule::automatic_t>>(*layouts->src, layouts->make_dst(),
                                                                                    schedule::automatic, Call::assign);
               }});
  e.push_back({"redist_messages", [layouts] {
                 return std::make_unique<RedistMethod<A, B, schedule::automatic_t>>(*layouts->src, layouts->make_dst(),
                                                                                    schedule::automatic, Call::messages);
               }});
  // b = a aggregating between nodes and not (only where the ranks span nodes of several ranks).
  if (layouts == nullptr || aggregation_applies(layouts->src->comm()))
    for (const auto& [name, call] : {std::pair{"redist_aggregated", Call::aggregated}, std::pair{"redist_unaggregated", Call::unaggregated}})
      e.push_back({name, [layouts, call] {
                     return std::make_unique<RedistMethod<A, B, schedule::automatic_t>>(*layouts->src, layouts->make_dst(),
                                                                                        schedule::automatic, call);
                   }});
  auto add_schedule = [&](const auto& s) {
    using Policy = std::remove_cvref_t<decltype(s.policy)>;
    using Serves = typename std::remove_cvref_t<decltype(s)>::layouts;
    if constexpr (Serves::template serves<DS, DD> &&
                  plannable<typename redist::detail::plan_layouts<A, B>::from_type,
                            typename redist::detail::plan_layouts<A, B>::to_type, Policy>) {
      const Policy policy = s.policy;
      e.push_back({std::string("redist:") + s.name, [layouts, policy] {
                     return std::make_unique<RedistMethod<A, B, Policy>>(*layouts->src, layouts->make_dst(), policy,
                                                                         Call::redistribute);
                   }});
    }
  };
  std::apply([&](const auto&... s) { (add_schedule(s), ...); }, schedules);
}

/// Every method that applies to the pair of layouts of L, in the order of the CSV:
/// redist, redist:SCHEDULE (schedules.hpp: the policies that serve DS -> DD), pdgemr2d and dropin (when ScaLAPACK can
/// express both layouts; dropin when libredist-scalapack was built), alltoallv, alltoallv_onepass, alltoallw, memcpy,
/// naive. Entries make their method from *L when called; listing names only, L may be null.
template <class T, class DS, class DD>
std::vector<MethodEntry> methods_1d(const Layouts1d<T, DS, DD>* L) {
  using A = DistArray<T, DS>;
  using B = DistArray<T, DD>;
  std::vector<MethodEntry> e;
  add_redist_methods<A, B, DS, DD>(e, L);
  if constexpr (std::is_same_v<T, double> && scalapack_expressible<DS> && scalapack_expressible<DD>) {
    e.push_back({"pdgemr2d", [L] { return std::make_unique<Gemr2dMethod<A, B>>(*L->src, L->make_dst(), *L->grids); }});
    if (dropin_pdgemr2d() != nullptr)
      e.push_back({"dropin", [L] {
                     return std::make_unique<Gemr2dMethod<A, B>>(*L->src, L->make_dst(), *L->grids, dropin_pdgemr2d());
                   }});
  }
  e.push_back({"alltoallv", [L] { return std::make_unique<AlltoallvMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"alltoallv_onepass", [L] { return std::make_unique<OnePassMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"alltoallw", [L] { return std::make_unique<AlltoallwMethod<A, B>>(*L->src, L->make_dst()); }});
  e.push_back({"memcpy", [L] { return std::make_unique<MemcpyMethod<A>>(*L->src); }});
  e.push_back({"naive", [L] { return std::make_unique<NaiveMethod<A, B>>(*L->src, L->make_dst()); }});
  return e;
}

}  // namespace redist::bench
