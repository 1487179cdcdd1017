// Threads (doc/threads.md): with MPI initialised at MPI_THREAD_MULTIPLE, each thread redistributes
// on its own communicator (an MPI_Comm_dup), all at the same time; two threads on one
// communicator at once would be refused with a redist::error.
#include <array>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <redist/redist.hpp>

using redist::index_t;

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv, boost::mpi::threading::multiple);
  boost::mpi::communicator world;
  if (boost::mpi::environment::thread_level() != boost::mpi::threading::multiple) {
    if (world.rank() == 0) std::printf("threads: this MPI does not provide MPI_THREAD_MULTIPLE\n");
    return 1;
  }
  constexpr int threads = 2;
  std::vector<boost::mpi::communicator> comms;  // one per thread
  for (int t = 0; t < threads; ++t) comms.emplace_back(world, boost::mpi::comm_duplicate);

  std::vector<int> ok(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const boost::mpi::communicator& comm = comms[static_cast<std::size_t>(t)];
      const index_t n = 100000 + t;
      // Thread 0 moves a 1-D array from CYCLIC(3) to BLOCK, thread 1 a matrix from rows to columns.
      if (t == 0) {
        redist::DistArray<double, redist::Cyclic<3>> a(comm, n);
        redist::DistArray<double, redist::Block> b(comm, n);
        for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = static_cast<double>(a.global_index(l));
        for (int round = 0; round < 20; ++round) b = a;
        bool mine = true;
        for (index_t l = 0; l < b.local_size(); ++l) mine = mine && b.local()[l] == static_cast<double>(b.global_index(l));
        ok[0] = boost::mpi::all_reduce(comm, mine, std::logical_and<bool>());
      } else {
        const int p = comm.size();
        using Rows = redist::Dist<redist::Block, redist::Collapsed>;
        using Cols = redist::Dist<redist::Collapsed, redist::Block>;
        redist::DistArray<double, Rows> a(comm, {300, 200}, redist::Grid{p, 1});
        redist::DistArray<double, Cols> b(comm, {300, 200}, redist::Grid{1, p});
        auto value = [](const std::array<index_t, 2>& g) { return static_cast<double>(g[0] * 1000 + g[1]); };
        const auto e = a.local_extents();
        for (index_t j = 0; j < e[1]; ++j)
          for (index_t i = 0; i < e[0]; ++i) a.local()[static_cast<std::size_t>(a.local_offset({i, j}))] = value(a.global_index({i, j}));
        for (int round = 0; round < 20; ++round) b = a;
        bool mine = true;
        const auto f = b.local_extents();
        for (index_t j = 0; j < f[1]; ++j)
          for (index_t i = 0; i < f[0]; ++i)
            mine = mine && b.local()[static_cast<std::size_t>(b.local_offset({i, j}))] == value(b.global_index({i, j}));
        ok[1] = boost::mpi::all_reduce(comm, mine, std::logical_and<bool>());
      }
    });
  for (std::thread& t : pool) t.join();
  const bool all = ok[0] == 1 && ok[1] == 1;
  if (world.rank() == 0) std::printf("threads: %d threads redistributed at once on their own communicators: %s\n", threads, all ? "ok" : "WRONG");
  return all ? 0 : 1;
}
