// expected-error: an Indirect<Op> destination of partial values takes b = a \(redistribute, make_plan\) only
#include <functional>

#include <redist/redist.hpp>

void twice(redist::DistArray<double, redist::Indirect<std::plus<>>>& c, const redist::DistArray<double, redist::Block>& a) {
  c = 2.0 * a;
}
