// Scaled and transposed updates as typed assignments: an accumulation C = C + 0.5 * Aᵀ between
// two ScaLAPACK-style block-cyclic layouts (PDTRAN's work, fused with the redistribution), a
// Hermitian part H = (Z + Zᴴ) / 2 of a complex matrix, and a 1-D b = 2 * a that never reads b.
#include <complex>
#include <cstdio>
#include <functional>
#include <limits>

#include <boost/mpi/collectives/all_reduce.hpp>

#include <redist/redist.hpp>

using redist::index_t;

int main(int argc, char* argv[]) {
  boost::mpi::environment env(argc, argv);
  boost::mpi::communicator world;
  const int p = world.size();
  using BC = redist::Dist<redist::Cyclic<>, redist::Cyclic<>>;
  bool ok = true;

  // C (300 x 200, 16 x 16 blocks on p x 1) += 0.5 * transpose(A) (A: 200 x 300, 8 x 32 blocks on 1 x p).
  redist::DistArray<double, BC> a(world, {200, 300}, BC{redist::Cyclic<>{8}, redist::Cyclic<>{32}}, redist::Grid{1, p});
  redist::DistArray<double, BC> c(world, {300, 200}, BC{redist::Cyclic<>{16}, redist::Cyclic<>{16}}, redist::Grid{p, 1});
  auto fill = [](auto& x, auto f) {
    const auto e = x.local_extents();
    for (index_t j = 0; j < e[1]; ++j)
      for (index_t i = 0; i < e[0]; ++i) x.local()[static_cast<std::size_t>(x.local_offset({i, j}))] = f(x.global_index({i, j}));
  };
  auto check = [&](const auto& x, auto f) {
    const auto e = x.local_extents();
    for (index_t j = 0; j < e[1]; ++j)
      for (index_t i = 0; i < e[0]; ++i)
        ok = ok && x.local()[static_cast<std::size_t>(x.local_offset({i, j}))] == f(x.global_index({i, j}));
  };
  fill(a, [](auto g) { return static_cast<double>(g[0] * 1000 + g[1]); });
  fill(c, [](auto g) { return static_cast<double>(g[0] + g[1]); });
  c = 0.5 * redist::transpose(a) + 1.0 * c;
  check(c, [](auto g) { return 0.5 * static_cast<double>(g[1] * 1000 + g[0]) + static_cast<double>(g[0] + g[1]); });

  // H = 0.5 * Zᴴ + 0.5 * H with H = Z first: the Hermitian part of Z, on two grids.
  using Z = std::complex<double>;
  redist::DistArray<Z, BC> z(world, {64, 64}, BC{redist::Cyclic<>{4}, redist::Cyclic<>{4}}, redist::Grid{1, p});
  redist::DistArray<Z, BC> h(world, {64, 64}, BC{redist::Cyclic<>{8}, redist::Cyclic<>{2}}, redist::Grid{p, 1});
  fill(z, [](auto g) { return Z(static_cast<double>(g[0]), static_cast<double>(g[1] - g[0])); });
  h = z;
  h = Z{0.5} * redist::conj_transpose(z) + Z{0.5} * h;
  check(h, [](auto g) {
    const Z x(static_cast<double>(g[0]), static_cast<double>(g[1] - g[0]));
    const Z y(static_cast<double>(g[1]), static_cast<double>(g[0] - g[1]));
    return 0.5 * std::conj(y) + 0.5 * x;
  });

  // 1-D: b = 2 * a with beta = 0, so b is never read: its NaNs do not propagate.
  redist::DistArray<double, redist::Cyclic<3>> u(world, 1000);
  redist::DistArray<double, redist::Block> v(world, 1000);
  for (index_t l = 0; l < static_cast<index_t>(u.local().size()); ++l) u.local()[static_cast<std::size_t>(l)] = static_cast<double>(u.global_index(l));
  for (double& x : v.local()) x = std::numeric_limits<double>::quiet_NaN();
  v = 2.0 * u;
  for (index_t l = 0; l < static_cast<index_t>(v.local().size()); ++l)
    ok = ok && v.local()[static_cast<std::size_t>(l)] == 2.0 * static_cast<double>(v.global_index(l));

  ok = boost::mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0)
    std::printf("%s: C += 0.5 A^T across block sizes and grids, the Hermitian part of Z, and b = 2 a without reading b\n",
                ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
