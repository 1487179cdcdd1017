// What every compile-fail file includes, precompiled once for all of them (test/meson.build,
// compile_fail_pch): check.sh passes this file with -include, and g++ reads its .gch beside it
// instead when it is valid for the compile's options (else this text: the same declarations).
#include <redist/redist.hpp>
