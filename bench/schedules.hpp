/// @file Defines the table of schedule policies that redist-bench measures, one method `redist:NAME` each, with the layout pairs each serves.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

#include <redist/dist/cyclic.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/multiphase.hpp>
#include <redist/plan/stepwise.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/schedule/basic_cycle.hpp>
#include <redist/schedule/circulant.hpp>
#include <redist/schedule/gen_block.hpp>
#include <redist/schedule/multiphase.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/schedule/caterpillar.hpp>
#include <redist/schedule/relative_group.hpp>
#include <redist/schedule/schedule.hpp>

namespace redist::bench {

template <class D>
inline constexpr bool is_cyclic = false;
template <std::size_t X>
inline constexpr bool is_cyclic<Cyclic<X>> = true;

/// The pairs of distributions (source DS, destination DD) a schedule policy serves. A policy
/// that rejects other pairs with a static_assert must name its pairs here, since no `requires`
/// can see a static_assert.
struct AnyLayouts {
  template <class DS, class DD>
  static constexpr bool serves = true;
};
struct CyclicToCyclic {
  template <class DS, class DD>
  static constexpr bool serves = is_cyclic<DS> && is_cyclic<DD>;
};
struct GenBlockToGenBlock {
  template <class DS, class DD>
  static constexpr bool serves = std::is_same_v<DS, GenBlock> && std::is_same_v<DD, GenBlock>;
};

template <class Policy, class Layouts = AnyLayouts>
struct NamedSchedule {
  using layouts = Layouts;
  const char* name;
  Policy policy;
};

/// Append one line per schedule policy, e.g.
/// `NamedSchedule<schedule::tpdr_t, GenBlockToGenBlock>{"tpdr", schedule::tpdr},`
/// (and include its header above). A policy is also left out of a case when redist has no
/// plan_with for the pair or make_plan throws redist::error.
inline const auto schedules = std::tuple{
    NamedSchedule<schedule::all_at_once_t>{"all_at_once", schedule::all_at_once},
    NamedSchedule<schedule::caterpillar_t>{"caterpillar", schedule::caterpillar},
    NamedSchedule<schedule::relative_group_t>{"relative_group", schedule::relative_group},
    NamedSchedule<schedule::bcc_t, CyclicToCyclic>{"bcc", schedule::bcc},
    NamedSchedule<schedule::bcc_contention_free_t, CyclicToCyclic>{"bcc_contention_free", schedule::bcc_contention_free},
    NamedSchedule<schedule::multiphase_t, CyclicToCyclic>{"multiphase", schedule::multiphase},
    NamedSchedule<schedule::direct_t, CyclicToCyclic>{"direct", schedule::direct},
    NamedSchedule<schedule::indirect_t, CyclicToCyclic>{"indirect", schedule::indirect},
    NamedSchedule<schedule::hybrid_t, CyclicToCyclic>{"hybrid1", schedule::hybrid(1)},
    NamedSchedule<schedule::tpdr_t, GenBlockToGenBlock>{"tpdr", schedule::tpdr},
    NamedSchedule<schedule::etpdr_t, GenBlockToGenBlock>{"etpdr", schedule::etpdr},
    NamedSchedule<schedule::list_t, GenBlockToGenBlock>{"list", schedule::list},
};

}  // namespace redist::bench
