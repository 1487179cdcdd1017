// expected-error: an Indirect array's owner\(g\) and local_index\(g\) are in its directory
#include <redist/redist.hpp>

int owner_of(const redist::DistArray<double, redist::Indirect<>>& a) { return a.owner(3); }
