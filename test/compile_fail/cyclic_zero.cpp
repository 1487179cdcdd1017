// expected-error: redist::Cyclic<X> requires X > 0; use Cyclic<redist::dynamic> for a run-time block size
#include <redist/redist.hpp>

redist::Cyclic<0> c;
