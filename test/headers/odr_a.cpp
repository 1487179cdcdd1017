// Two translation units include every header: an inline function or variable defined twice would not link.
#include <redist/redist.hpp>

int odr_a() { return static_cast<int>(redist::Cyclic<3>::mapping(redist::Cyclic<3>{}, 10, 2).owner(4)); }
