// A user-defined schedule: shift, in which step k (k = 1 ... P-1) every rank sends to rank + k and
// receives from rank - k (mod P), one message each. It is one specialization of redist::planner:
// which layout pairs it serves, its sentence for the others, and its plan, built here from the
// general plan with its steps reordered. redistribute(a, b, shift) then plans, caches and runs it
// like redist's own schedules, on 1-D and N-D layouts alike.
#include <array>
#include <cstdio>
#include <map>
#include <utility>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

struct shift_t {
  friend constexpr bool operator==(shift_t, shift_t) noexcept { return true; }
};
inline constexpr shift_t shift{};

template <>
struct redist::planner<shift_t> {
  /// The pairs the general plan serves: two 1-D layouts or two N-D layouts.
  template <class From, class To>
  static constexpr bool supports = redist::general_pair<From, To>;
  template <class From, class To>
  static constexpr void require() {
    static_assert(supports<From, To>, "shift requires two 1-D layouts or two N-D layouts");
  }
  /// The general plan, its messages ordered into P - 1 steps: step k sends to rank + k, receives
  /// from rank - k. Every rank has the same number of steps, and each step is a permutation.
  template <class From, class To>
  static auto plan(const From& from, const To& to, int rank, shift_t) {
    auto p = redist::planner<redist::schedule::all_at_once_t>::plan(from, to, rank, redist::schedule::all_at_once);
    auto& stage = p.only();  // the general plan: one stage of messages from the source to the destination
    std::map<int, std::size_t> send_to, recv_from;
    for (std::size_t i = 0; i < stage.sends.size(); ++i) send_to[stage.sends[i].peer] = i;
    for (std::size_t i = 0; i < stage.recvs.size(); ++i) recv_from[stage.recvs[i].peer] = i;
    redist::schedule::Schedule s;
    for (int k = 1; k < p.nprocs; ++k) {
      redist::schedule::Step step;
      if (auto it = send_to.find((rank + k) % p.nprocs); it != send_to.end()) step.sends.push_back(it->second);
      if (auto it = recv_from.find((rank - k + p.nprocs) % p.nprocs); it != recv_from.end())
        step.recvs.push_back(it->second);
      s.steps.push_back(std::move(step));
    }
    stage.schedule = std::move(s);
    p.schedule_name = "shift";  // what redist::explain reports
    return p;
  }
};

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const int p = world.size();
  bool ok = true;
  // 1-D: Block -> Cyclic<3>.
  redist::DistArray<double, redist::Block> a_block(world, 10007);
  redist::DistArray<double, redist::Cyclic<3>> b_cyc3(world, 10007);
  for (index_t l = 0; l < a_block.local_size(); ++l) a_block.local()[l] = static_cast<double>(a_block.global_index(l));
  redist::redistribute(a_block, b_cyc3, shift);
  for (index_t l = 0; l < b_cyc3.local_size(); ++l) ok = ok && b_cyc3.local()[l] == static_cast<double>(b_cyc3.global_index(l));
  // 2-D: rows on P x 1 -> columns on 1 x P (the corner turn), in P - 1 shifts.
  using Rows = redist::Dist<redist::Block, redist::Collapsed>;
  using Cols = redist::Dist<redist::Collapsed, redist::Block>;
  redist::DistArray<double, Rows> m_rows(world, {40, 30}, redist::Grid{p, 1});
  redist::DistArray<double, Cols> m_cols(world, {40, 30}, redist::Grid{1, p});
  auto value = [](const std::array<index_t, 2>& g) { return static_cast<double>(g[0] * 1000 + g[1]); };
  const auto er = m_rows.local_extents();
  for (index_t j = 0; j < er[1]; ++j)
    for (index_t i = 0; i < er[0]; ++i) m_rows.local()[m_rows.local_offset({i, j})] = value(m_rows.global_index({i, j}));
  auto plan = redist::make_plan(m_rows, m_cols, shift);
  plan.execute(m_rows, m_cols);
  const auto ec = m_cols.local_extents();
  for (index_t j = 0; j < ec[1]; ++j)
    for (index_t i = 0; i < ec[0]; ++i) ok = ok && m_cols.local()[m_cols.local_offset({i, j})] == value(m_cols.global_index({i, j}));
  ok = mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0)
    std::printf("shift: %zu steps per rank on %d processes; %s\n", plan.plan().steps(), p,
                ok ? "all values arrived" : "WRONG");
  return ok ? 0 : 1;
}
