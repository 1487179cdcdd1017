// Seed 001's generalized circulant schedules from the user's side: the R(6, 9) tables at compile
// time, CYCLIC(4) -> CYCLIC(4K) under direct, indirect and hybrid(d), a general pair in two
// phases, the calibrated GDM model choosing among them and BCC, schedule::automatic timing its
// candidates when the plan runs again, explain(), and `b = a`.
// Every result is verified element by element.
#include <cstdio>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

// Compile time: Theorem 2's tables and the schedules' step counts are constants.
constexpr redist::index::Circulant r69(6, 9);  // K = 6, P = 9: G = 3, K' = 2, P' = 3
static_assert(r69.ps(0, 1) == 6 && r69.ps(0, 4) == 8);  // row 0 of Ps: 0 6 3 2 8 5 1 7 4
static_assert(redist::schedule::circulant_schedule(redist::index::Circulant(31, 64), 99).size() == 6);

template <class A>
bool holds(const A& a) {
  for (index_t l = 0; l < a.local_size(); ++l)
    if (a.local()[l] != static_cast<double>(a.global_index(l))) return false;
  return true;
}

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const index_t n = 50021;  // ragged

  redist::DistArray<double, redist::Cyclic<4>> a_cyc4(world, n);
  redist::DistArray<double, redist::Cyclic<28>> b_cyc28(world, n);  // K = 7
  redist::DistArray<double, redist::Cyclic<redist::dynamic>> c_cyc6(world, n, redist::Cyclic<redist::dynamic>{6});
  for (index_t l = 0; l < a_cyc4.local_size(); ++l) a_cyc4.local()[l] = static_cast<double>(a_cyc4.global_index(l));

  bool ok = true;
  redist::redistribute(a_cyc4, b_cyc28, redist::schedule::direct);     // K steps, blocks sent straight
  ok = ok && holds(b_cyc28);
  redist::redistribute(b_cyc28, a_cyc4, redist::schedule::indirect);   // back: ceil(log K) + 1 steps, relayed
  ok = ok && holds(a_cyc4);
  redist::redistribute(a_cyc4, b_cyc28, redist::schedule::hybrid(1));  // one shift, then direct
  ok = ok && holds(b_cyc28);
  redist::redistribute(b_cyc28, c_cyc6, redist::schedule::indirect);   // 28 -> 84 -> 6: two phases
  ok = ok && holds(c_cyc6);

  // The GDM model with this machine's Ts and Td (measured once per communicator, the same on
  // every rank) chooses among BCC, direct, indirect and hybrid(d).
  const redist::schedule::Machine m = redist::runtime::gdm_parameters(world);
  // A scratch budget with room for relays: under the default (the local array) automatic and
  // modeled fall back to BCC whenever a circulant schedule needs more workspace. And messages
  // between every pair: on a node whose arrays are in shared memory, b = a copies from the owners'
  // memory instead, which needs no schedule (automatic and modeled then run the pair's BCC plan).
  redist::options roomy;
  roomy.max_scratch_bytes = mpi::all_reduce(  // the same on every rank, as options must be
      world, 8 * sizeof(double) * static_cast<std::size_t>(a_cyc4.local_size() + b_cyc28.local_size()),
      mpi::maximum<std::size_t>());
  roomy.shared_memory = false;
  auto plan = redist::make_plan(a_cyc4, b_cyc28, redist::schedule::modeled(m), roomy);
  plan.execute(a_cyc4, b_cyc28);
  ok = ok && holds(b_cyc28);
  if (world.rank() == 0)
    std::printf("Ts = %.3g us, Td = %.3g ns/byte: CYCLIC(4) -> CYCLIC(28) on %d ranks runs %s, %zu steps\n", m.ts * 1e6,
                m.td * 1e9, world.size(), plan.plan().schedule_name.c_str(), plan.plan().steps());

  // schedule::automatic (what `b = a` uses) runs the model's choice (built-in machine), and when
  // the plan runs again times its candidates: BCC and the hybrid(d) the model puts within twice
  // its best, the ones that fit the budget on every rank; it keeps the fastest (the same on every
  // rank). Later runs reuse it; a plan made and run once is never timed.
  auto tuned = redist::make_plan(b_cyc28, a_cyc4, redist::schedule::automatic, roomy);
  tuned.execute(b_cyc28, a_cyc4);
  tuned.execute(b_cyc28, a_cyc4);
  ok = ok && holds(a_cyc4);
  if (world.rank() == 0) {
    std::printf("automatic timed");
    for (const redist::schedule::CyclicChoice& c : tuned.timed_candidates()) {
      if (c.kind == redist::schedule::CyclicChoice::method::basic_cycles) std::printf(" BCC %.3g ms,", c.measured * 1e3);
      else std::printf(" hybrid(%d) %.3g ms,", c.d, c.measured * 1e3);
    }
    std::printf(" and runs %s\n", tuned.plan().schedule_name.c_str());
  }
  // What `a = b` does, as explain reports it: the plan cached in a_cyc4 for these options, after
  // its second run (which timed the candidates).
  redist::redistribute(b_cyc28, a_cyc4, redist::schedule::automatic, roomy);
  redist::redistribute(b_cyc28, a_cyc4, redist::schedule::automatic, roomy);
  ok = ok && holds(a_cyc4);
  const redist::Explanation e = redist::explain(b_cyc28, a_cyc4, redist::schedule::automatic, roomy);
  if (world.rank() == 0) std::printf("%s", e.str().c_str());
  // options::tune_reps = 0: the model's choice, untimed.
  redist::options untimed;
  untimed.tune_reps = 0;
  redist::redistribute(b_cyc28, a_cyc4, redist::schedule::automatic, untimed);
  ok = ok && holds(a_cyc4);

  a_cyc4 = b_cyc28;  // schedule::automatic with the default options
  ok = ok && holds(a_cyc4);

  ok = mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0) std::printf("%s\n", ok ? "all results verified" : "WRONG RESULT");
  return ok ? 0 : 1;
}
