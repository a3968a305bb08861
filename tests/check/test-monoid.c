#include "cr-test-util.h"
int main (void) { return 77; }
