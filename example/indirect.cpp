// Arbitrary layouts: a 1-D mesh whose cells each rank lists (an unstructured code's partition, a
// load balancer's output), with a halo of ghost cells. The solution x is the first part of the
// ghosted array u (its cells, then its ghosts: PETSc's VecGhost, Tpetra's offset view), a DistView
// over u's storage. Each step: the ghosts are filled from their owners in place (Tpetra's Import,
// PetscSF's Bcast: `u = x`, the halo layout Indirect<>; the cells are already there), every rank
// computes a flux on its faces into the contributions c (an Indirect<std::plus<>> on the same
// list: the flux of a face between two ranks adds to both cells), and the contributions are summed
// into the cells' owners in place (Tpetra's Export with ADD, PetscSF's Reduce, PETSc's
// VecGhostUpdate with ADD_VALUES: `dx = c`, dx a view over c's cells, the ghosts' contributions
// sent and added there), then added to x. The owners' layout is itself
// given by an owner map (HPF's INDIRECT, from_owners), as a partitioner returns it. Checked against
// the same step computed on one rank.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <redist/redist.hpp>

using redist::index_t;

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  const int p = world.size(), r = world.rank();
  const index_t n = 10000;  // cells

  // The partition: cell g belongs to rank (g / 64) % P, in stripes, as a partitioner would spread
  // them. Rank r passes the owners of its block of the owner map (ceil(n / P) cells).
  const index_t b = (n + p - 1) / p;
  std::vector<int> owners;
  for (index_t g = std::min(n, b * r); g < std::min(n, b * (r + 1)); ++g) owners.push_back(static_cast<int>((g / 64) % p));
  const auto cells = redist::Indirect<>::from_owners(world, n, owners);  // this rank's cells, ascending

  // The halo: this rank's cells, then each neighbour cell it does not own (a ghost).
  std::vector<index_t> with_ghosts = cells.indices();
  std::vector<char> mine(static_cast<std::size_t>(n), 0);
  for (index_t g : cells.indices()) mine[static_cast<std::size_t>(g)] = 1;
  for (index_t g : cells.indices())
    for (index_t k : {g - 1, g + 1})
      if (k >= 0 && k < n && !mine[static_cast<std::size_t>(k)]) {
        mine[static_cast<std::size_t>(k)] = 1;
        with_ghosts.push_back(k);
      }

  redist::DistArray<double, redist::Indirect<>> u(world, n, redist::Indirect<>{with_ghosts});  // cells, then ghosts
  redist::DistView<double, redist::Indirect<>> x(u.local().data(), world, n, cells);  // the solution: u's cells
  redist::DistArray<double, redist::Indirect<std::plus<>>> c(world, n, redist::Indirect<std::plus<>>{with_ghosts});
  redist::DistView<double, redist::Indirect<>> dx(c.local().data(), world, n, cells);  // c's cells: their sums
  auto initial = [](index_t g) { return static_cast<double>((g * 37) % 101); };
  for (index_t l = 0; l < x.local_size(); ++l) x.local()[static_cast<std::size_t>(l)] = initial(x.global_index(l));

  // Where each global cell sits in u (and c): the local index of each listed cell.
  std::vector<index_t> at(static_cast<std::size_t>(n), -1);
  for (index_t l = 0; l < u.local_size(); ++l) at[static_cast<std::size_t>(u.global_index(l))] = l;

  const int steps = 5;
  const double k = 0.1;
  for (int s = 0; s < steps; ++s) {
    u = x;  // the ghosts from their owners; each cell is already in its place (an update in place)
    // Faces (g, g + 1) of which this rank owns the left cell: the flux into both cells.
    for (double& v : c.local()) v = 0;
    for (index_t g : cells.indices()) {
      if (g + 1 >= n) continue;
      const auto i = static_cast<std::size_t>(at[static_cast<std::size_t>(g)]);
      const auto j = static_cast<std::size_t>(at[static_cast<std::size_t>(g + 1)]);
      const double flux = k * (u.local()[j] - u.local()[i]);
      c.local()[i] += flux;
      c.local()[j] -= flux;
    }
    dx = c;  // every contribution summed into its cell's place in c, on the cell's owner (in place)
    for (index_t l = 0; l < x.local_size(); ++l) x.local()[static_cast<std::size_t>(l)] += dx.local()[static_cast<std::size_t>(l)];
  }

  // The same steps on one array.
  std::vector<double> ref(static_cast<std::size_t>(n));
  for (index_t g = 0; g < n; ++g) ref[static_cast<std::size_t>(g)] = initial(g);
  for (int s = 0; s < steps; ++s) {
    std::vector<double> next = ref;
    for (index_t g = 0; g + 1 < n; ++g) {
      const double flux = k * (ref[static_cast<std::size_t>(g + 1)] - ref[static_cast<std::size_t>(g)]);
      next[static_cast<std::size_t>(g)] += flux;
      next[static_cast<std::size_t>(g + 1)] -= flux;
    }
    ref = next;
  }
  double err = 0;
  for (index_t l = 0; l < x.local_size(); ++l)
    err = std::max(err, std::abs(x.local()[static_cast<std::size_t>(l)] - ref[static_cast<std::size_t>(x.global_index(l))]));
  err = boost::mpi::all_reduce(world, err, boost::mpi::maximum<double>());
  const auto e = redist::explain(x, u);
  const auto sums = redist::explain(c, dx);
  if (r == 0) {
    std::printf("%d steps of a 1-D mesh of %lld cells on %d ranks, cells in stripes of 64 by an owner map\n", steps,
                static_cast<long long>(n), p);
    std::printf("rank 0: %lld cells, %lld with ghosts; filling the ghosts in place: %zu messages (%s), %lld bytes\n",
                static_cast<long long>(x.local_size()), static_cast<long long>(u.local_size()), e.messages,
                e.transport.c_str(), static_cast<long long>(e.bytes));
    std::printf("summing the contributions in place: %zu messages (%s), %lld bytes\n", sums.messages, sums.transport.c_str(),
                static_cast<long long>(sums.bytes));
    std::printf("largest difference from the one-array computation: %g\n", err);
  }
  return err < 1e-9 ? 0 : 1;
}
