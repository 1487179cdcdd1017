// A user-defined distribution: ReversedBlock, HPF BLOCK with the processes in reverse order
// (process P-1 holds the first block). It opts in with distribution_tag and describes each
// process's elements as LDDs; redist plans and moves it like its own distributions.
#include <algorithm>
#include <cstdio>

#include <boost/mpi/collectives.hpp>
#include <redist/redist.hpp>

namespace mpi = boost::mpi;
using redist::index_t;

class ReversedBlock {
 public:
  using distribution_concept = redist::distribution_tag;
  friend constexpr bool operator==(ReversedBlock, ReversedBlock) noexcept { return true; }

  class mapping {
   public:
    constexpr mapping(ReversedBlock, index_t n, int nprocs)
        : n_{n}, p_{nprocs}, b_{std::max<index_t>(1, (n + nprocs - 1) / nprocs)} {}
    constexpr index_t size() const noexcept { return n_; }
    constexpr int nprocs() const noexcept { return p_; }
    constexpr int owner(index_t g) const noexcept { return p_ - 1 - static_cast<int>(g / b_); }
    constexpr index_t local_index(index_t g) const noexcept { return g % b_; }
    constexpr index_t global_index(int p, index_t l) const noexcept { return (p_ - 1 - p) * b_ + l; }
    constexpr index_t local_size(int p) const noexcept {
      return std::clamp<index_t>(n_ - (p_ - 1 - p) * b_, 0, b_);
    }
    /// One block: (origin, length, stride, count, local offset of the first element).
    constexpr redist::LddSet ldds(int p) const {
      redist::LddSet set;
      set.push_back(redist::Ldd{(p_ - 1 - p) * b_, local_size(p), local_size(p), 1, 0});
      return set;
    }
    friend constexpr bool operator==(const mapping&, const mapping&) = default;

   private:
    index_t n_;
    int p_;
    index_t b_;
  };
};
static_assert(redist::Distribution<ReversedBlock>);

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const index_t n = 10007;
  redist::DistArray<int, redist::Cyclic<3>> a_cyc3(world, n);
  redist::DistArray<int, ReversedBlock> b_rev(world, n);
  for (index_t l = 0; l < a_cyc3.local_size(); ++l) a_cyc3.local()[l] = static_cast<int>(a_cyc3.global_index(l));
  b_rev = a_cyc3;
  bool ok = true;
  for (index_t l = 0; l < b_rev.local_size(); ++l) ok = ok && b_rev.local()[l] == b_rev.global_index(l);
  ok = mpi::all_reduce(world, ok, std::logical_and<bool>());
  if (world.rank() == 0)
    std::printf("ReversedBlock: rank %d holds element 0; %s\n", b_rev.owner(0), ok ? "all values arrived" : "WRONG");
  return ok ? 0 : 1;
}
