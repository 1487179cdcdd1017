// One message of more than 2^31 bytes between two ranks: a DistArray<char> of 2^31 + 1000 elements.
#include <boost/mpi/communicator.hpp>
#include <catch2/catch.hpp>

#include <redist/redist.hpp>

#include "../support/mpi_check.hpp"

using namespace redist;

TEST_CASE("2^31 + 1000 chars move from rank 0 to rank 1 in one message", "[mpi][large]") {
  boost::mpi::communicator world;
  REQUIRE(world.size() == 2);
  const index_t n = (index_t{1} << 31) + 1000;
  DistArray<char, GenBlock> a(world, n, GenBlock{n, index_t{0}});
  DistArray<char, GenBlock> b(world, n, GenBlock{index_t{0}, n});
  auto pattern = [](index_t g) { return static_cast<char>((g * 7 + g / 65536) % 251); };
  for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = pattern(a.global_index(l));
  auto plan = make_plan(a, b);
  REQUIRE(plan.plan().only().sends.size() == static_cast<std::size_t>(world.rank() == 0));
  if (world.rank() == 0) REQUIRE(plan.plan().only().sends[0].size == n);  // one message of n elements
  plan.execute(a, b);
  bool ok = true;
  for (index_t l = 0; l < b.local_size(); ++l) ok = ok && b.local()[l] == pattern(b.global_index(l));
  REQUIRE(redist::test::all_ok(world, ok));
  CHECK(plan.scratch_high_water() == 0);  // sent from a and received into b directly
}
