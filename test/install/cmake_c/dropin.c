/* Prints the file of the pdgemr2d_ this program calls: linked with redist::scalapack before
 * ScaLAPACK, it is libredist-scalapack's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

void pdgemr2d_(void);

int main(void) {
  Dl_info info;
  if (!dladdr((void*)pdgemr2d_, &info) || !info.dli_fname) return 1;
  puts(info.dli_fname);
  return 0;
}
