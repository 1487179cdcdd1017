// The basic-cycle calculation (seed 000) from the user's side: compile-time tables of
// BLOCK-CYCLIC(3) -> BLOCK-CYCLIC(2) on 4 processes, `b = a` between Cyclic types (BCC, chosen from
// the types), the contention-free order, the multi-phase baseline, and a plan built from the
// static tables and run with runtime::execute. Every result is verified element by element.
#include <algorithm>
#include <cstdio>
#include <functional>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

// Compile time: BC, the case and the templates of Figure 4 (seed 000) are constants.
using Fig2 = redist::BasicCyclePlan<3, 2, 4>;
static_assert(Fig2::bc == 6 && Fig2::kind == redist::index::bcc_case::coprime);
static_assert(Fig2::send_templates[2] == std::array{3, 3, 0, 1, 1, 2});  // P2 sends to P3 P3 P0 P1 P1 P2

// With the extents in the type as well, the whole message table of b = a is a constant: rank 0
// of CYCLIC(3) -> CYCLIC(2) on 4 processes, 48 elements (12 local), keeps 4 and sends 2, 4 and 2
// to ranks 1, 2 and 3: its send template, 0 0 1 2 2 3, over its two basic cycles.
using A48 = redist::DistArray<double, redist::Cyclic<3>, redist::Grid<4>, redist::Extents<48>>;
using B48 = redist::DistArray<double, redist::Cyclic<2>, redist::Grid<4>, redist::Extents<48>>;
static_assert(Fig2::send_templates[0] == std::array{0, 0, 1, 2, 2, 3});
static_assert(redist::message_table<A48, B48>()[0] == std::array<index_t, 4>{4, 2, 4, 2});

template <class A>
bool holds(const A& a) {
  for (index_t l = 0; l < a.local_size(); ++l)
    if (a.local()[l] != static_cast<double>(a.global_index(l))) return false;
  return true;
}

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const index_t n = 100003;  // ragged: not a multiple of any period here

  redist::DistArray<double, redist::Cyclic<8>> a_cyc8(world, n);
  redist::DistArray<double, redist::Cyclic<5>> b_cyc5(world, n);
  redist::DistArray<double, redist::Cyclic<redist::dynamic>> c_cyck(world, n, redist::Cyclic<redist::dynamic>{20});
  for (index_t l = 0; l < a_cyc8.local_size(); ++l) a_cyc8.local()[l] = static_cast<double>(a_cyc8.global_index(l));

  b_cyc5 = a_cyc8;  // Cyclic<8> -> Cyclic<5>: the basic-cycle calculation, in BCC's send order
  bool ok = holds(b_cyc5);
  redist::redistribute(b_cyc5, c_cyck, redist::schedule::bcc_contention_free);  // one message per rank per step
  ok = ok && holds(c_cyck);
  redist::redistribute(c_cyck, a_cyc8, redist::schedule::multiphase);  // CYCLIC(20) -> CYCLIC(40) -> CYCLIC(8)
  ok = ok && holds(a_cyc8);

  // The BCC plan of b_cyc5 = a_cyc8, held: what the templates give (its stage's Cycles).
  auto plan = redist::make_plan(a_cyc8, b_cyc5, redist::schedule::bcc);
  const redist::Plan& p = plan.plan();
  const redist::Cycles& cycles = p.only().cycles;
  const redist::index::BasicCycle shape(8, 5, world.size());
  const long messages = mpi::all_reduce(world, static_cast<long>(p.messages_sent()), std::plus<long>());
  if (world.rank() == 0)
    std::printf("CYCLIC(8) -> CYCLIC(5) on %d: BC = %lld meta-elements, basic cycle %lld elements, %lld full cycles, "
                "%zu sections per cycle, eq. (5) delta = %lld, %ld messages in %zu steps\n",
                world.size(), static_cast<long long>(shape.bc), static_cast<long long>(cycles.cycle),
                static_cast<long long>(cycles.full_cycles), cycles.send_pattern.size(),
                static_cast<long long>(shape.delta()), messages, p.steps());

  // With the process count a constant too (the grid type Grid<4>), b = a takes its templates from
  // the static tables of BasicCyclePlan<3, 2, 4>: redist::tables_built() does not move.
  if (world.size() == 4) {
    A48 a_cyc3(world);  // extents, block size and process count from the type
    B48 b_cyc2(world);
    for (index_t l = 0; l < a_cyc3.local_size(); ++l) a_cyc3.local()[l] = static_cast<double>(a_cyc3.global_index(l));
    const std::size_t tables = redist::tables_built();
    b_cyc2 = a_cyc3;
    ok = ok && holds(b_cyc2) && redist::tables_built() == tables;
    // The same plan by hand, from Fig2's tables, run with runtime::execute.
    const redist::Plan fig2 = Fig2::plan(48, world.rank());
    redist::runtime::Workspace ws;
    std::fill(b_cyc2.local().begin(), b_cyc2.local().end(), -1.0);
    redist::runtime::execute(fig2, world, std::span<const double>(a_cyc3.local()), b_cyc2.local(), ws);
    ok = ok && holds(b_cyc2);
    if (world.rank() == 0)
      std::printf("CYCLIC(3) -> CYCLIC(2) on Grid<4>: static tables, %zu templates computed at run time\n",
                  redist::tables_built() - tables);
  }
  ok = mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0) std::printf("%s\n", ok ? "all exact" : "WRONG");
  return ok ? 0 : 1;
}
