// The second translation unit of the ODR test; main checks both see the same definitions.
#include <redist/redist.hpp>

int odr_a();

int main() {
  const int b = static_cast<int>(redist::Cyclic<3>::mapping(redist::Cyclic<3>{}, 10, 2).owner(4));
  return (odr_a() == 1 && b == 1 && redist::plans_built() == 0) ? 0 : 1;
}
